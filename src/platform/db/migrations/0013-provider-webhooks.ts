/**
 * Provider webhooks: every accepted inbound platform delivery, once (unique by platform and dedupe
 * key: the platform's event id or the body's hash), and the platform-side subscriptions provisioned
 * for the inbound endpoint. Platform-level rows: a delivery is matched to organizations only when processed.
 */
import { type Kysely, sql } from 'kysely';
import { idKey, required, timestamps } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_webhook_deliveries')
    .$call(idKey)
    .addColumn('platform', 'text', required)
    .addColumn('dedupe_key', 'text', required)
    .addColumn('payload', 'jsonb', required)
    .addColumn('event_count', 'integer', required)
    .addColumn('received_at', 'timestamptz', required)
    .addColumn('processed_at', 'timestamptz')
    .addColumn('outcome', 'jsonb')
    .execute();
  await sql`create unique index provider_webhook_deliveries_dedupe on provider_webhook_deliveries (platform, dedupe_key)`.execute(db);
  await sql`create index provider_webhook_deliveries_received on provider_webhook_deliveries (received_at)`.execute(db);
  await db.schema
    .createTable('provider_webhook_subscriptions')
    .$call(idKey)
    .addColumn('platform', 'text', required)
    .addColumn('topic', 'text', required)
    .addColumn('callback_url', 'text', required)
    .addColumn('state', 'text', required)
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('details', 'jsonb', required)
    .$call(timestamps)
    .execute();
  await sql`create unique index provider_webhook_subscriptions_topic on provider_webhook_subscriptions (platform, topic)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_webhook_subscriptions').execute();
  await db.schema.dropTable('provider_webhook_deliveries').execute();
}
