/**
 * The prune of tool API idempotency records past their window (the maintenance job's step): one bounded
 * batch chosen by tool_idempotency_expires_idx. A record inside its window (expires_at still ahead) is
 * never removed; reads already ignore expired ones.
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';

export const toolsRetentionRepository = {
  async pruneExpiredIdempotency(db: Db, now: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from tool_idempotency where (api_key_id, tool, idempotency_key) in (
        select api_key_id, tool, idempotency_key from tool_idempotency
        where expires_at <= ${now}
        order by expires_at
        limit ${limit}
        for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
