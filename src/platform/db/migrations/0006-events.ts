/**
 * The event outbox: every state change that integrators may subscribe to writes one row here in the
 * same transaction as the change. Webhook fan-out reads it; a row is never updated except to mark
 * that it was fanned out. `sequence_key` groups the events of one resource (a publish job) and
 * `sequence` numbers them in commit order within that group so receivers can order them.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addColumn('sequence_key', 'text')
    .addColumn('sequence', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('fanned_out_at', 'timestamptz')
    .execute();
  await sql`create index events_org_id_idx on events (organization_id, id)`.execute(db);
  await sql`create index events_pending_idx on events (id) where fanned_out_at is null`.execute(db);
  await sql`create unique index events_sequence_idx on events (sequence_key, sequence) where sequence_key is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
