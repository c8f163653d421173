/**
 * Drops `webhook_deliveries_pending_idx` (pending deliveries by `next_attempt_at`): it served the sweep that
 * found overdue deliveries before they were claimed from their table (0023), and no statement reads by it
 * since; every delivery still paid for it twice (the row's insert and its claim, an update that moves
 * `claim_at` and so writes every index of the row again).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists webhook_deliveries_pending_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists webhook_deliveries_pending_idx on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
}
