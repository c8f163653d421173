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

const invalid = (field: string, message: string) =>
  new AppError('invalid_public_brand_request', { message, fields: [{ path: [field], source: 'body' }] });

function checkedName(value: string, max: number): string {
  const name = value.trim();
  if (!name || name.length > max) throw invalid('name', `name must be 1 to ${max} characters.`);
  return name;
}

function checkedZone(timezone: string): string {
  if (!isValidTimeZone(timezone)) throw invalid('timezone', `Unknown time zone ${timezone}; use an IANA name such as Europe/Berlin.`);
  return timezone;
}

function checkedProductUrl(url: string | null | undefined): void {
  if (!url) return;
  let ok = false;
  try {
    ok = ['http:', 'https:'].includes(new URL(url).protocol);
  } catch {}
  if (!ok) throw invalid('productUrl', 'productUrl must be an http(s) URL.');
}

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

  /** The organization of a brand, null when there is no such brand (the operator's commands take a bare brand id). */
  organizationOf(brandId: string): Promise<string | null> {
    return brandsRepository.organizationOfBrand(this.db, brandId);
  }

  /** The number of brands of each of the organizations (organizations without brands are absent). */
  brandCounts(organizationIds: string[]): Promise<Map<string, number>> {
    return brandsRepository.countByOrganization(this.db, organizationIds);
  }

  async get(organizationId: string, brandId: string): Promise<BrandT> {
    const row = await brandsRepository.get(this.db, organizationId, brandId);
    if (!row) throw new AppError('brand_not_found', { message: `No brand ${brandId} in the principal organization.` });
    return toBrand(row, await brandsRepository.productsFor(this.db, organizationId, [brandId]));
  }

  async create(organizationId: string, input: { name: string; slug?: string; timezone?: string }, at: Date): Promise<BrandT> {
    const name = checkedName(input.name, 120);
    const timezone = checkedZone(input.timezone ?? 'UTC');
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
    const name = checkedName(input.name, 200);
    checkedProductUrl(input.productUrl);
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

  /** Renames a brand or changes its time zone (the zone its calendar and batch times are read in). */
  async update(organizationId: string, brandId: string, input: { name?: string; timezone?: string }, at: Date): Promise<BrandT> {
    const set = {
      ...(input.name !== undefined ? { name: checkedName(input.name, 120) } : {}),
      ...(input.timezone !== undefined ? { timezone: checkedZone(input.timezone) } : {}),
    };
    if (!(await brandsRepository.updateBrand(this.db, organizationId, brandId, set, at)))
      throw new AppError('brand_not_found', { message: `No brand ${brandId} in the principal organization.` });
    return this.get(organizationId, brandId);
  }

  async updateProduct(
    organizationId: string,
    brandId: string,
    productId: string,
    input: { name?: string; productUrl?: string | null; storeProductId?: string | null },
    at: Date,
  ): Promise<BrandProductT> {
    await this.get(organizationId, brandId);
    checkedProductUrl(input.productUrl);
    const set = { ...input, ...(input.name !== undefined ? { name: checkedName(input.name, 200) } : {}) };
    if (!(await brandsRepository.updateProduct(this.db, organizationId, brandId, productId, set, at)))
      throw new AppError('brand_not_found', {
        message: `No product ${productId} in brand ${brandId}.`,
        fields: [{ path: ['productId'], source: 'params' }],
      });
    const brand = await this.get(organizationId, brandId);
    return brand.products!.find((p) => p.productId === productId)!;
  }
}
