/**
 * Automation sources (soft-deleted), their runs, and the feed items each source has seen. A run may
 * carry a tick key (schedule tick) that is unique per source, so a source never runs twice for one tick.
 */
import { type Kysely, sql } from 'kysely';
import { brandRow, cascadeTo, createdAt, organizationIndex, organizationRow, required, timestamps } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('automation_sources')
    .$call(brandRow)
    .addColumn('kind', 'text', required)
    .addColumn('name', 'text', required)
    .addColumn('enabled', 'boolean', required)
    .addColumn('config', 'jsonb', required)
    .addColumn('schedule', 'jsonb')
    .addColumn('state', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('last_run_at', 'timestamptz')
    .$call(timestamps)
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await sql`create index automation_sources_org_idx on automation_sources (organization_id, id) where deleted_at is null`.execute(db);

  await db.schema
    .createTable('automation_runs')
    .$call(organizationRow)
    .addColumn('source_id', 'text', cascadeTo('automation_sources'))
    .addColumn('status', 'text', required)
    .addColumn('trigger', 'text', required)
    .addColumn('dry_run', 'boolean', required)
    .addColumn('tick_key', 'text')
    .addColumn('started_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addColumn('error', 'jsonb')
    .addColumn('output', 'jsonb', required)
    .$call(timestamps)
    .execute();
  await organizationIndex(db, 'automation_runs', 'automation_runs_org_idx');
  await sql`create unique index automation_runs_tick_idx on automation_runs (source_id, tick_key) where tick_key is not null`.execute(db);

  await db.schema
    .createTable('automation_seen_items')
    .addColumn('source_id', 'text', cascadeTo('automation_sources'))
    .addColumn('item_key', 'text', required)
    .$call(createdAt)
    .addPrimaryKeyConstraint('automation_seen_items_pk', ['source_id', 'item_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('automation_seen_items').execute();
  await db.schema.dropTable('automation_runs').execute();
  await db.schema.dropTable('automation_sources').execute();
}
