/**
 * Webhook deliveries are claimed by the workers straight from their table: `claim_at` is when a worker
 * may claim the delivery next (due now, a retry's time, or the end of the lease of the worker sending
 * it); null when nothing is to be sent (delivered, failed, or parked while its endpoint is disabled).
 * `next_attempt_at` stays the time the API shows. Pending deliveries of an older version (each had a
 * queue job) become claimable at their next attempt.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('claim_at', 'timestamptz').execute();
  await sql`update webhook_deliveries set claim_at = next_attempt_at where status = 'pending' and next_attempt_at is not null`.execute(db);
  await sql`create index webhook_deliveries_claim_idx on webhook_deliveries (claim_at) where claim_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists webhook_deliveries_claim_idx`.execute(db);
  await db.schema.alterTable('webhook_deliveries').dropColumn('claim_at').execute();
}
