/**
 * Webhook endpoints (per organization, signing secret encrypted), one delivery row per (event,
 * endpoint) send request and one attempt row per HTTP attempt (the delivery log).
 */
import { type Kysely, sql } from 'kysely';
import { cascadeTo, createdAt, idKey, organizationIndex, organizationRow, required, timestamps } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .$call(organizationRow)
    .addColumn('url', 'text', required)
    .addColumn('description', 'text')
    .addColumn('event_types', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('disabled_reason', 'text')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('secret_enc', 'text', required)
    .addColumn('previous_secret_enc', 'text')
    .addColumn('previous_secret_expires_at', 'timestamptz')
    .addColumn('failing_since', 'timestamptz')
    .$call(timestamps)
    .execute();
  await organizationIndex(db, 'webhook_endpoints', 'webhook_endpoints_org_idx');

  await db.schema
    .createTable('webhook_deliveries')
    .$call(organizationRow)
    .addColumn('endpoint_id', 'text', cascadeTo('webhook_endpoints'))
    .addColumn('event_id', 'text', cascadeTo('events'))
    .addColumn('event_type', 'text', required)
    .addColumn('status', 'text', required)
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('delivered_at', 'timestamptz')
    .$call(timestamps)
    .execute();
  await sql`create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, id)`.execute(db);
  await sql`create index webhook_deliveries_created_idx on webhook_deliveries (created_at)`.execute(db);

  await db.schema
    .createTable('webhook_attempts')
    .$call(idKey)
    .addColumn('delivery_id', 'text', cascadeTo('webhook_deliveries'))
    .addColumn('attempt', 'integer', required)
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', required)
    .addColumn('response_excerpt', 'text')
    .addColumn('error_class', 'text')
    .addColumn('next_retry_at', 'timestamptz')
    .$call(createdAt)
    .execute();
  await sql`create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempt)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
