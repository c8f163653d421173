/**
 * The retention prune of the automation run log (the maintenance job's step): one bounded batch of
 * finished runs (succeeded, failed, cancelled) created before the cutoff, chosen by
 * automation_runs_created_idx. Queued and running runs stay whatever their age; the posts and batches a
 * run created are not touched (they are publishing's and batches' rows, kept with their own rules).
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';

export const automationsRetentionRepository = {
  async pruneFinishedRuns(db: Db, cutoff: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from automation_runs where id in (
        select id from automation_runs
        where created_at < ${cutoff} and status in ('succeeded', 'failed', 'cancelled')
        order by created_at
        limit ${limit}
        for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
