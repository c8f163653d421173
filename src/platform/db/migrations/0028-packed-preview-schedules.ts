/**
 * A stored batch preview keeps its schedule packed (`schedule_packed`, Brotli-compressed JSON: see
 * src/modules/batches/stored-schedule.ts) instead of as jsonb. `schedule` stays for the previews stored
 * before, readable until they expire (minutes to hours); new rows leave it null.
 *
 * Undo: the packed previews cannot be turned back into jsonb by SQL, so they are deleted (a commit naming
 * one answers publish_batch_preview_expired and the client previews again); the others keep their jsonb.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table publish_batch_previews add column if not exists schedule_packed bytea`.execute(db);
  await sql`alter table publish_batch_previews alter column schedule drop not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from publish_batch_previews where schedule is null`.execute(db);
  await sql`alter table publish_batch_previews alter column schedule set not null`.execute(db);
  await sql`alter table publish_batch_previews drop column if exists schedule_packed`.execute(db);
}
