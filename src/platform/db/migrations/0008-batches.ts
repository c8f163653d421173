/**
 * Publish batches: the batch (policy, preview summary, idempotency), its items (one per client asset,
 * each with the publish job made for it), its targets (slot, time, jitter, and the publish target made
 * for it; null while unscheduled) and the assets (one per brand and clientAssetId).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publish_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('freeze_horizon_minutes', 'integer', (c) => c.notNull())
    .addColumn('schedule_policy', 'jsonb', (c) => c.notNull())
    .addColumn('preview', 'jsonb', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('target_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index publish_batches_idem_idx on publish_batches (organization_id, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
  await sql`create index publish_batches_org_idx on publish_batches (organization_id, id)`.execute(db);

  await db.schema
    .createTable('assets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('client_asset_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('product_url', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('media', 'jsonb', (c) => c.notNull())
    .addColumn('media_library_item_ids', 'jsonb', (c) => c.notNull())
    .addColumn('last_batch_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index assets_client_idx on assets (organization_id, brand_id, client_asset_id)`.execute(db);
  await sql`create index assets_org_idx on assets (organization_id, id)`.execute(db);

  await db.schema
    .createTable('publish_batch_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('batch_id', 'text', (c) => c.notNull().references('publish_batches.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('client_asset_id', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('publish_job_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index publish_batch_items_batch_idx on publish_batch_items (batch_id, position)`.execute(db);
  await sql`create index publish_batch_items_asset_idx on publish_batch_items (asset_id)`.execute(db);

  await db.schema
    .createTable('publish_batch_targets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('batch_id', 'text', (c) => c.notNull().references('publish_batches.id').onDelete('cascade'))
    .addColumn('item_id', 'text', (c) => c.notNull().references('publish_batch_items.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('channel_account_id', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('slot_id', 'text')
    .addColumn('scheduled_at', 'timestamptz')
    .addColumn('jitter_seconds', 'integer')
    .addColumn('post_target_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
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
