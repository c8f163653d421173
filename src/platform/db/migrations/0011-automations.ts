/**
 * Automation sources (soft-deleted), their runs, and the feed items each source has seen. A run may
 * carry a tick key (schedule tick) that is unique per source, so a source never runs twice for one tick.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('automation_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('config', 'jsonb', (c) => c.notNull())
    .addColumn('schedule', 'jsonb')
    .addColumn('state', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await sql`create index automation_sources_org_idx on automation_sources (organization_id, id) where deleted_at is null`.execute(db);

  await db.schema
    .createTable('automation_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('source_id', 'text', (c) => c.notNull().references('automation_sources.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('dry_run', 'boolean', (c) => c.notNull())
    .addColumn('tick_key', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('error', 'jsonb')
    .addColumn('output', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index automation_runs_org_idx on automation_runs (organization_id, id)`.execute(db);
  await sql`create unique index automation_runs_tick_idx on automation_runs (source_id, tick_key) where tick_key is not null`.execute(db);

  await db.schema
    .createTable('automation_seen_items')
    .addColumn('source_id', 'text', (c) => c.notNull().references('automation_sources.id').onDelete('cascade'))
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('automation_seen_items_pk', ['source_id', 'item_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('automation_seen_items').execute();
  await db.schema.dropTable('automation_runs').execute();
  await db.schema.dropTable('automation_sources').execute();
}
