/**
 * Analytics snapshots: one row per metrics read of a published post, append-only (an update is refused
 * by a trigger; rows leave only with their organization). Metrics are kept as read, so they outlive the
 * platforms' own retention windows.
 */
import { type Kysely, sql } from 'kysely';
import { brandRow, createdAt, organizationIndex, required } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_snapshots')
    .$call(brandRow)
    .addColumn('channel_account_id', 'text', required)
    .addColumn('platform', 'text', required)
    .addColumn('post_target_id', 'text')
    .addColumn('provider_post_id', 'text', required)
    .addColumn('captured_at', 'timestamptz', required)
    .addColumn('metrics', 'jsonb', required)
    .addColumn('source', 'jsonb', required)
    .addColumn('trigger', 'text', required)
    .$call(createdAt)
    .execute();
  await organizationIndex(db, 'analytics_snapshots', 'analytics_snapshots_org_idx');
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
