/**
 * The event outbox: every state change that integrators may subscribe to writes one row here in the
 * same transaction as the change. Webhook fan-out reads it; a row is never updated except to mark
 * that it was fanned out. `sequence_key` groups the events of one resource (a publish job) and
 * `sequence` numbers them in commit order within that group so receivers can order them.
 */
import { type Kysely, sql } from 'kysely';
import { createdAtNow, organizationIndex, organizationRow, required } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('events')
    .$call(organizationRow)
    .addColumn('type', 'text', required)
    .addColumn('data', 'jsonb', required)
    .addColumn('sequence_key', 'text')
    .addColumn('sequence', 'integer')
    .$call(createdAtNow)
    .addColumn('fanned_out_at', 'timestamptz')
    .execute();
  await organizationIndex(db, 'events', 'events_org_id_idx');
  await sql`create index events_pending_idx on events (id) where fanned_out_at is null`.execute(db);
  await sql`create unique index events_sequence_idx on events (sequence_key, sequence) where sequence_key is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
