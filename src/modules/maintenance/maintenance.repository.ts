/** Maintenance's own statements: the heartbeats of workers that vanished without a graceful stop. */
import { sql } from 'kysely';
import type { Db } from '../database.js';

export const maintenanceRepository = {
  /** Heartbeats older than a day (their worker is gone); answers how many went. */
  async pruneStaleHeartbeats(db: Db, now: Date): Promise<number> {
    const r = await db
      .deleteFrom('worker_heartbeats')
      .where('beat_at', '<', sql<Date>`${now}::timestamptz - interval '1 day'`)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },
};
