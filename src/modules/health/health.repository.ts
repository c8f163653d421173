/**
 * The readiness check's statements: a round trip to the database and the newest worker heartbeat (the
 * workers' `worker_heartbeats`, infrastructure of no organization).
 */
import { sql } from 'kysely';
import type { Executor } from '../database.js';

export const healthRepository = {
  async ping(db: Executor): Promise<void> {
    await sql`select 1`.execute(db);
  },

  /** The most recent heartbeat of any worker, or undefined when none has beaten. */
  async lastHeartbeat(db: Executor) {
    return db.selectFrom('worker_heartbeats').select(['worker_id', 'beat_at']).orderBy('beat_at', 'desc').limit(1).executeTakeFirst();
  },
};
