/**
 * Media library items. Bytes live in the media store under `storage_key`; the row holds what the type
 * sniffing and probing found. Dedup: one active item per (organization, sha256) — an item being
 * deleted does not block a fresh upload of the same bytes.
 */
import { type Kysely, sql } from 'kysely';
import { organizationIndex, organizationRow, required, setNullTo, timestampsNow } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('media_library_items')
    .$call(organizationRow)
    .addColumn('brand_id', 'text', setNullTo('brands'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('image','video','gif')`))
    .addColumn('mime_type', 'text', required)
    .addColumn('sha256', 'text', required)
    .addColumn('bytes', 'bigint', required)
    .addColumn('storage_backend', 'text', (c) => c.notNull().check(sql`storage_backend in ('disk','s3')`))
    .addColumn('storage_key', 'text', required)
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('lifecycle_state', 'text', (c) => c.notNull().defaultTo('active').check(sql`lifecycle_state in ('active','deleting')`))
    .$call(timestampsNow)
    .execute();
  await sql`create unique index media_library_items_org_sha_active_idx on media_library_items (organization_id, sha256) where lifecycle_state = 'active'`.execute(
    db,
  );
  await organizationIndex(db, 'media_library_items', 'media_library_items_org_id_idx');
  await sql`create index media_library_items_org_brand_idx on media_library_items (organization_id, brand_id, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('media_library_items').execute();
}
