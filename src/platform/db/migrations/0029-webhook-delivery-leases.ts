/**
 * A webhook delivery's claim becomes a HOT update: the claim used to move `claim_at` (indexed by
 * `webhook_deliveries_claim_idx`) to the end of its lease, and an update of an indexed column writes a new
 * entry in every index of the row. The lease now has a column of its own, `leased_until` (no index): the
 * claim sets it and leaves `claim_at` (the delivery's place in the queue) as it was. A claim is HOT where
 * the row's page has room for its new version: `npm run bench:webhooks` counted about seven claims in ten
 * HOT (the pages of the newest deliveries are pruned between claims). A fillfactor of 85 made it about
 * eight in ten, for a sixth more table: not kept.
 *
 * Undo: a delivery leased now gets its lease end back in `claim_at` (claimable when it ends, as before).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table webhook_deliveries add column if not exists leased_until timestamptz`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update webhook_deliveries set claim_at = leased_until
    where claim_at is not null and leased_until is not null and leased_until > claim_at`.execute(db);
  await sql`alter table webhook_deliveries drop column if exists leased_until`.execute(db);
}
