/**
 * Publish batches: the batch (policy, preview summary, idempotency), its items (one per client asset,
 * each with the publish job made for it), its targets (slot, time, jitter, and the publish target made
 * for it; null while unscheduled) and the assets (one per brand and clientAssetId).
 */
import { type Kysely, sql } from 'kysely';
import { brandRow, cascadeTo, createdAt, idKey, organizationIndex, required, timestamps } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publish_batches')
    .$call(brandRow)
    .addColumn('source', 'text', required)
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text', required)
    .addColumn('freeze_horizon_minutes', 'integer', required)
    .addColumn('schedule_policy', 'jsonb', required)
    .addColumn('preview', 'jsonb', required)
    .addColumn('item_count', 'integer', required)
    .addColumn('target_count', 'integer', required)
    .$call(timestamps)
    .execute();
  await sql`create unique index publish_batches_idem_idx on publish_batches (organization_id, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
  await organizationIndex(db, 'publish_batches', 'publish_batches_org_idx');

  await db.schema
    .createTable('assets')
    .$call(brandRow)
    .addColumn('client_asset_id', 'text', required)
    .addColumn('product_id', 'text', required)
    .addColumn('title', 'text')
    .addColumn('product_url', 'text')
    .addColumn('text', 'text', required)
    .addColumn('media', 'jsonb', required)
    .addColumn('media_library_item_ids', 'jsonb', required)
    .addColumn('last_batch_id', 'text')
    .$call(timestamps)
    .execute();
  await sql`create unique index assets_client_idx on assets (organization_id, brand_id, client_asset_id)`.execute(db);
  await organizationIndex(db, 'assets', 'assets_org_idx');

  await db.schema
    .createTable('publish_batch_items')
    .$call(idKey)
    .addColumn('organization_id', 'text', required)
    .addColumn('batch_id', 'text', cascadeTo('publish_batches'))
    .addColumn('position', 'integer', required)
    .addColumn('client_asset_id', 'text', required)
    .addColumn('asset_id', 'text', required)
    .addColumn('product_id', 'text', required)
    .addColumn('publish_job_id', 'text')
    .$call(createdAt)
    .execute();
  await sql`create index publish_batch_items_batch_idx on publish_batch_items (batch_id, position)`.execute(db);
  await sql`create index publish_batch_items_asset_idx on publish_batch_items (asset_id)`.execute(db);

  await db.schema
    .createTable('publish_batch_targets')
    .$call(idKey)
    .addColumn('organization_id', 'text', required)
    .addColumn('batch_id', 'text', cascadeTo('publish_batches'))
    .addColumn('item_id', 'text', cascadeTo('publish_batch_items'))
    .addColumn('position', 'integer', required)
    .addColumn('channel_account_id', 'text', required)
    .addColumn('platform', 'text', required)
    .addColumn('slot_id', 'text')
    .addColumn('scheduled_at', 'timestamptz')
    .addColumn('jitter_seconds', 'integer')
    .addColumn('post_target_id', 'text')
    .$call(createdAt)
    .execute();
  await sql`create index publish_batch_targets_batch_idx on publish_batch_targets (batch_id, item_id, position)`.execute(db);
  await sql`create index publish_batch_targets_post_idx on publish_batch_targets (post_target_id)`.execute(db);
  await sql`create index publish_batch_targets_channel_idx on publish_batch_targets (organization_id, channel_account_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('publish_batch_targets').execute();
  await db.schema.dropTable('publish_batch_items').execute();
  await db.schema.dropTable('assets').execute();
  await db.schema.dropTable('publish_batches').execute();
}
