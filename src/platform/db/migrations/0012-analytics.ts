/**
 * Analytics snapshots: append-only readings of a published post's metrics (never updated; a new
 * reading is a new row), kept as long as the organization exists, beyond the platforms' own windows.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_snapshots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('channel_account_id', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('post_target_id', 'text')
    .addColumn('provider_post_id', 'text', (c) => c.notNull())
    .addColumn('captured_at', 'timestamptz', (c) => c.notNull())
    .addColumn('metrics', 'jsonb', (c) => c.notNull())
    .addColumn('source', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index analytics_snapshots_org_idx on analytics_snapshots (organization_id, id)`.execute(db);
  await sql`create index analytics_snapshots_target_idx on analytics_snapshots (organization_id, post_target_id, captured_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('analytics_snapshots').execute();
}
