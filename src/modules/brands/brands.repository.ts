import { sql } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { BrandProductsTable, BrandsTable } from '../../platform/db/schema.js';
import type { Executor } from '../database.js';

type BrandRow = { [K in keyof BrandsTable]: K extends 'created_at' | 'updated_at' ? Date : BrandsTable[K] } & { product_count: number };
type ProductRow = { [K in keyof BrandProductsTable]: K extends 'created_at' | 'updated_at' ? Date : BrandProductsTable[K] };

export type { BrandRow, ProductRow };

export const brandsRepository = {
  /** A page of brands ordered by id (creation order), fetched with limit + 1 to detect a next page. */
  async list(db: Executor, organizationId: string, q: { slug?: string; afterId: string | null; limit: number }): Promise<BrandRow[]> {
    let query = db
      .selectFrom('brands as b')
      .selectAll('b')
      .select(
        sql<number>`(select count(*) from brand_products p where p.brand_id = b.id and p.organization_id = b.organization_id)::int`.as(
          'product_count',
        ),
      )
      .where('b.organization_id', '=', organizationId);
    if (q.slug) query = query.where('b.slug', '=', q.slug);
    return (await keysetPage(query, 'b.id', q.afterId, q.limit).execute()) as BrandRow[];
  },

  async get(db: Executor, organizationId: string, brandId: string): Promise<BrandRow | null> {
    const row = await db
      .selectFrom('brands as b')
      .selectAll('b')
      .select(
        sql<number>`(select count(*) from brand_products p where p.brand_id = b.id and p.organization_id = b.organization_id)::int`.as(
          'product_count',
        ),
      )
      .where('b.organization_id', '=', organizationId)
      .where('b.id', '=', brandId)
      .executeTakeFirst();
    return (row as BrandRow | undefined) ?? null;
  },

  /** A brand's id and time zone (null when the organization has no such brand). */
  async zoneOf(db: Executor, organizationId: string, brandId: string): Promise<{ id: string; timezone: string } | null> {
    const row = await db
      .selectFrom('brands')
      .select(['id', 'timezone'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', brandId)
      .executeTakeFirst();
    return row ?? null;
  },

  /** Name and slug of the organization's brands among `ids`, by id (null and unknown ids are left out). */
  async namesOf(
    db: Executor,
    organizationId: string,
    ids: ReadonlyArray<string | null>,
  ): Promise<Map<string, { name: string; slug: string }>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await db
      .selectFrom('brands')
      .select(['id', 'name', 'slug'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', wanted)
      .execute();
    return new Map(rows.map((r) => [r.id, { name: r.name, slug: r.slug }]));
  },

  async hasProduct(db: Executor, organizationId: string, brandId: string, productId: string): Promise<boolean> {
    const row = await db
      .selectFrom('brand_products')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .where('id', '=', productId)
      .executeTakeFirst();
    return !!row;
  },

  async productsOf(db: Executor, organizationId: string, brandId: string, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await db
      .selectFrom('brand_products')
      .select(['id', 'name', 'product_url'])
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .where('id', 'in', ids)
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, productUrl: r.product_url }));
  },

  async productsFor(db: Executor, organizationId: string, brandIds: string[]): Promise<ProductRow[]> {
    if (brandIds.length === 0) return [];
    return (await db
      .selectFrom('brand_products')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('brand_id', 'in', brandIds)
      .orderBy('id')
      .execute()) as ProductRow[];
  },

  async insertBrand(db: Executor, row: { id: string; organizationId: string; name: string; slug: string; timezone: string; at: Date }) {
    await db
      .insertInto('brands')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        name: row.name,
        slug: row.slug,
        timezone: row.timezone,
        created_at: row.at,
        updated_at: row.at,
      })
      .execute();
  },

  async slugTaken(db: Executor, organizationId: string, slug: string): Promise<boolean> {
    return !!(await db
      .selectFrom('brands')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('slug', '=', slug)
      .executeTakeFirst());
  },

  async productSlugTaken(db: Executor, organizationId: string, brandId: string, slug: string): Promise<boolean> {
    return !!(await db
      .selectFrom('brand_products')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .where('slug', '=', slug)
      .executeTakeFirst());
  },

  async insertProduct(
    db: Executor,
    row: {
      id: string;
      organizationId: string;
      brandId: string;
      name: string;
      slug: string;
      productUrl: string | null;
      storeProductId: string | null;
      at: Date;
    },
  ) {
    await db
      .insertInto('brand_products')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        brand_id: row.brandId,
        name: row.name,
        slug: row.slug,
        product_url: row.productUrl,
        store_product_id: row.storeProductId,
        created_at: row.at,
        updated_at: row.at,
      })
      .execute();
  },

  /** Changes the given fields of a brand of the organization; false when there is no such brand. */
  async updateBrand(db: Executor, organizationId: string, brandId: string, set: { name?: string; timezone?: string }, at: Date) {
    const result = await db
      .updateTable('brands')
      .set({ ...set, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', brandId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Changes the given fields of a product of the brand; false when there is no such product. */
  async updateProduct(
    db: Executor,
    organizationId: string,
    brandId: string,
    productId: string,
    set: { name?: string; productUrl?: string | null; storeProductId?: string | null },
    at: Date,
  ) {
    const result = await db
      .updateTable('brand_products')
      .set({
        ...(set.name !== undefined ? { name: set.name } : {}),
        ...(set.productUrl !== undefined ? { product_url: set.productUrl } : {}),
        ...(set.storeProductId !== undefined ? { store_product_id: set.storeProductId } : {}),
        updated_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .where('id', '=', productId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** The number of brands of each of the organizations (organizations without brands are absent). */
  async countByOrganization(db: Executor, organizationIds: string[]): Promise<Map<string, number>> {
    if (organizationIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('brands')
      .select((eb) => ['organization_id', eb.fn.countAll<number>().as('n')])
      .where('organization_id', 'in', organizationIds)
      .groupBy('organization_id')
      .execute();
    return new Map(rows.map((r) => [r.organization_id, Number(r.n)]));
  },

  /** Organization of a brand, for the CLI's `products create --brand` and `products list` (operator commands). */
  async organizationOfBrand(db: Executor, brandId: string): Promise<string | null> {
    return (await db.selectFrom('brands').select('organization_id').where('id', '=', brandId).executeTakeFirst())?.organization_id ?? null;
  },
};
