/**
 * Provider webhooks: every accepted inbound platform delivery, once (unique by platform and dedupe
 * key: the platform's event id or the body's hash), and the platform-side subscriptions provisioned
 * for the inbound endpoint. Platform-level rows: a delivery is matched to organizations only when processed.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz')
    .addColumn('outcome', 'jsonb')
    .execute();
  await sql`create unique index provider_webhook_deliveries_dedupe on provider_webhook_deliveries (platform, dedupe_key)`.execute(db);
  await sql`create index provider_webhook_deliveries_received on provider_webhook_deliveries (received_at)`.execute(db);
  await db.schema
    .createTable('provider_webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull())
    .addColumn('callback_url', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('lease_expires_at', 'timestamptz')
    .addColumn('details', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index provider_webhook_subscriptions_topic on provider_webhook_subscriptions (platform, topic)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_webhook_subscriptions').execute();
  await db.schema.dropTable('provider_webhook_deliveries').execute();
}
