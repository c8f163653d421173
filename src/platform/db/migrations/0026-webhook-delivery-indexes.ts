/**
 * Fewer index writes per webhook delivery. A delivery row is written three times (the fan-out's insert, the
 * claim, the outcome), and the claim and the outcome move indexed columns (`claim_at`, `status`), so each of
 * those writes every index of the row again.
 *
 * - `webhook_deliveries_endpoint_idx` (endpoint, id) served only the endpoint's unfiltered delivery log; the
 *   log now reads it as the merge of the endpoint's per-status ranges of `webhook_deliveries_endpoint_status_idx`
 *   (three short index scans, `webhooksRepository.listDeliveries`).
 * - `webhook_deliveries_created_idx` (created_at) served only the retention prune, which deletes finished
 *   deliveries: the index now holds only those (`status <> 'pending'`), so a delivery enters it once, at its
 *   outcome, instead of at all three writes.
 * - `webhook_attempts` was keyed by its id, which no statement reads by, beside an index on (delivery, attempt)
 *   that every read uses: (delivery, attempt) is now the primary key (an attempt's number only grows within
 *   its delivery, and each is written by the statement that moves the delivery's count, as every version
 *   since the table's first wrote them, so existing rows hold the key), one index an attempt.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists webhook_deliveries_endpoint_idx`.execute(db);
  await sql`drop index if exists webhook_deliveries_created_idx`.execute(db);
  await sql`create index if not exists webhook_deliveries_finished_idx on webhook_deliveries (created_at) where status <> 'pending'`.execute(
    db,
  );
  await sql`alter table webhook_attempts drop constraint webhook_attempts_pkey`.execute(db);
  await sql`alter table webhook_attempts add constraint webhook_attempts_pkey primary key (delivery_id, attempt)`.execute(db);
  await sql`drop index if exists webhook_attempts_delivery_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempt)`.execute(db);
  await sql`alter table webhook_attempts drop constraint webhook_attempts_pkey`.execute(db);
  await sql`alter table webhook_attempts add constraint webhook_attempts_pkey primary key (id)`.execute(db);
  await sql`drop index if exists webhook_deliveries_finished_idx`.execute(db);
  await sql`create index if not exists webhook_deliveries_created_idx on webhook_deliveries (created_at)`.execute(db);
  await sql`create index if not exists webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, id)`.execute(db);
}
