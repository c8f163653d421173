/**
 * Indexes of the maintenance prune, so each of its bounded batches finds its rows without a scan: the
 * events by age, the deliveries naming an event (the prune keeps an event a delivery names, and an
 * event's delete checks its deliveries' foreign key), and the automation runs by age.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index if not exists events_created_idx on events (created_at)`.execute(db);
  await sql`create index if not exists webhook_deliveries_event_idx on webhook_deliveries (event_id)`.execute(db);
  await sql`create index if not exists automation_runs_created_idx on automation_runs (created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists automation_runs_created_idx`.execute(db);
  await sql`drop index if exists webhook_deliveries_event_idx`.execute(db);
  await sql`drop index if exists events_created_idx`.execute(db);
}
