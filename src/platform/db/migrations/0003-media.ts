/**
 * Media library items. Bytes live in the media store under `storage_key`; the row holds what the type
 * sniffing and probing found. Dedup: one active item per (organization, sha256) — an item being
 * deleted does not block a fresh upload of the same bytes.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('media_library_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.references('brands.id').onDelete('set null'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('image','video','gif')`))
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('storage_backend', 'text', (c) => c.notNull().check(sql`storage_backend in ('disk','s3')`))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('lifecycle_state', 'text', (c) => c.notNull().defaultTo('active').check(sql`lifecycle_state in ('active','deleting')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index media_library_items_org_sha_active_idx on media_library_items (organization_id, sha256) where lifecycle_state = 'active'`.execute(
    db,
  );
  await sql`create index media_library_items_org_id_idx on media_library_items (organization_id, id)`.execute(db);
  await sql`create index media_library_items_org_brand_idx on media_library_items (organization_id, brand_id, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media_library_items').execute();
}
