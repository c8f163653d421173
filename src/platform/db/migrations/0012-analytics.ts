/**
 * Analytics snapshots: one row per metrics read of a published post, append-only (an update is refused
 * by a trigger; rows leave only with their organization). Metrics are kept as read, so they outlive the
 * platforms' own retention windows.
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
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index analytics_snapshots_org_idx on analytics_snapshots (organization_id, id)`.execute(db);
  await sql`create index analytics_snapshots_target_idx on analytics_snapshots (organization_id, post_target_id, captured_at)`.execute(db);
  await sql`create index analytics_snapshots_channel_idx on analytics_snapshots (organization_id, channel_account_id, captured_at)`.execute(
    db,
  );
  await sql`
    create function analytics_snapshots_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'analytics snapshots are append-only';
    end $$`.execute(db);
  await sql`create trigger analytics_snapshots_no_update before update on analytics_snapshots
    for each row execute function analytics_snapshots_append_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('analytics_snapshots').execute();
  await sql`drop function if exists analytics_snapshots_append_only()`.execute(db);
}
