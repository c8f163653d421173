import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { slugify } from '../../platform/slug.js';
import { isValidTimeZone } from '../../platform/time/zoned-time.js';
import type { Db } from '../database.js';
import { type BrandRow, brandsRepository, type ProductRow } from './brands.repository.js';
import type { BrandListQueryT, BrandProductT, BrandT } from './brands.schemas.js';

const toProduct = (p: ProductRow): BrandProductT => ({
  productId: p.id,
  brandId: p.brand_id,
  name: p.name,
  slug: p.slug,
  productUrl: p.product_url,
  storeProductId: p.store_product_id,
  createdAt: p.created_at.toISOString(),
  updatedAt: p.updated_at.toISOString(),
});

const toBrand = (b: BrandRow, products?: ProductRow[]): BrandT => ({
  brandId: b.id,
  organizationId: b.organization_id,
  name: b.name,
  slug: b.slug,
  timezone: b.timezone,
  productCount: Number(b.product_count),
  createdAt: b.created_at.toISOString(),
  updatedAt: b.updated_at.toISOString(),
  ...(products ? { products: products.map(toProduct) } : {}),
});

export class BrandsService {
  constructor(private readonly db: Db) {}

  async list(organizationId: string, q: BrandListQueryT) {
    const limit = q.limit ?? 50;
    const filters = { slug: q.slug, includeProducts: q.includeProducts ?? false };
    const afterId = decodeCursor(q.cursor, filters, 'invalid_public_brand_query');
    const rows = await brandsRepository.list(this.db, organizationId, { slug: q.slug, afterId, limit });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    if (!q.includeProducts) return { data: data.map((b) => toBrand(b)), nextCursor };
    const products = await brandsRepository.productsFor(
      this.db,
      organizationId,
      data.map((b) => b.id),
    );
    return {
      data: data.map((b) =>
        toBrand(
          b,
          products.filter((p) => p.brand_id === b.id),
        ),
      ),
      nextCursor,
    };
  }

  async get(organizationId: string, brandId: string): Promise<BrandT> {
    const row = await brandsRepository.get(this.db, organizationId, brandId);
    if (!row) throw new AppError('brand_not_found', { message: `No brand ${brandId} in the principal organization.` });
    return toBrand(row, await brandsRepository.productsFor(this.db, organizationId, [brandId]));
  }

  async create(organizationId: string, input: { name: string; slug?: string; timezone?: string }, at: Date): Promise<BrandT> {
    const name = input.name.trim();
    if (!name || name.length > 120)
      throw new AppError('invalid_public_brand_request', {
        message: 'name must be 1 to 120 characters.',
        fields: [{ path: ['name'], source: 'body' }],
      });
    const timezone = input.timezone ?? 'UTC';
    if (!isValidTimeZone(timezone))
      throw new AppError('invalid_public_brand_request', {
        message: `Unknown time zone ${timezone}.`,
        fields: [{ path: ['timezone'], source: 'body' }],
      });
    const slug = input.slug ? input.slug.trim() : slugify(name);
    if (!/^[a-z0-9][a-z0-9-]{0,119}$/.test(slug))
      throw new AppError('invalid_public_brand_request', {
        message: 'slug must be lowercase letters, digits and dashes (1-120).',
        fields: [{ path: ['slug'], source: 'body' }],
      });
    if (await brandsRepository.slugTaken(this.db, organizationId, slug))
      throw new AppError('invalid_public_brand_request', {
        message: `A brand with slug ${slug} exists.`,
        fields: [{ path: ['slug'], source: 'body' }],
      });
    const id = newId('brd');
    await brandsRepository.insertBrand(this.db, { id, organizationId, name, slug, timezone, at });
    return this.get(organizationId, id);
  }

  async createProduct(
    organizationId: string,
    brandId: string,
    input: { name: string; slug?: string; productUrl?: string | null; storeProductId?: string | null },
    at: Date,
  ): Promise<BrandProductT> {
    await this.get(organizationId, brandId);
    const name = input.name.trim();
    if (!name || name.length > 200)
      throw new AppError('invalid_public_brand_request', {
        message: 'name must be 1 to 200 characters.',
        fields: [{ path: ['name'], source: 'body' }],
      });
    if (input.productUrl) {
      let ok = false;
      try {
        ok = ['http:', 'https:'].includes(new URL(input.productUrl).protocol);
      } catch {}
      if (!ok)
        throw new AppError('invalid_public_brand_request', {
          message: 'productUrl must be an http(s) URL.',
          fields: [{ path: ['productUrl'], source: 'body' }],
        });
    }
    const slug = input.slug?.trim() || slugify(name);
    if (await brandsRepository.productSlugTaken(this.db, organizationId, brandId, slug))
      throw new AppError('invalid_public_brand_request', {
        message: `A product with slug ${slug} exists in this brand.`,
        fields: [{ path: ['slug'], source: 'body' }],
      });
    const id = newId('prd');
    await brandsRepository.insertProduct(this.db, {
      id,
      organizationId,
      brandId,
      name,
      slug,
      productUrl: input.productUrl ?? null,
      storeProductId: input.storeProductId ?? null,
      at,
    });
    const brand = await this.get(organizationId, brandId);
    return brand.products!.find((p) => p.productId === id)!;
  }
}
