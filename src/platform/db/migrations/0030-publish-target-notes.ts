/**
 * A published outcome noted on its target before it is written in full. During a burst the publishing
 * engine writes what the platform answered (post id, permalink, when) into these columns at once, in
 * batches, and the full outcome (state, the job's status, the outcome events) once the burst's calls have
 * all started (publish-outcomes.ts). None of the columns is in an index, so the note is a HOT update where
 * the row's page has room: one write-ahead log record a target, against about 26 for the full outcome.
 * A worker that stops between the two leaves the note; the reconciliation sweep writes the outcome from it
 * (never a second platform call, never a lookup).
 *
 * Undo: the notes are dropped; a target left noted is then resolved by the sweep's platform lookup, as before.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table publish_targets add column if not exists posted_post_id text`.execute(db);
  await sql`alter table publish_targets add column if not exists posted_url text`.execute(db);
  await sql`alter table publish_targets add column if not exists posted_at timestamptz`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table publish_targets drop column if exists posted_at`.execute(db);
  await sql`alter table publish_targets drop column if exists posted_url`.execute(db);
  await sql`alter table publish_targets drop column if exists posted_post_id`.execute(db);
}
