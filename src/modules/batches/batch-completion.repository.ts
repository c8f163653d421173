/**
 * The completion scan's statements: batches not announced yet (across organizations: the worker's sweep;
 * each row names its organization), their links to publish targets, and the once-only check of the
 * announcement in the event outbox.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.js';

const COMPLETED_EVENT = 'publish_batch.completed';

export const batchCompletionRepository = {
  /** Batches with a publish target and no publish_batch.completed event yet, by id after `afterId`. */
  async unannounced(db: Executor, afterId: string | null, limit: number) {
    let query = db
      .selectFrom('publish_batches as b')
      .select(['b.id', 'b.organization_id'])
      .where(sql<boolean>`not exists (select 1 from events e where e.sequence_key = b.id and e.type = ${sql.lit(COMPLETED_EVENT)})`)
      .where(sql<boolean>`exists (select 1 from publish_batch_targets bt where bt.batch_id = b.id and bt.post_target_id is not null)`);
    if (afterId) query = query.where('b.id', '>', afterId);
    return query.orderBy('b.id').limit(limit).execute();
  },

  /** The publish targets of the batches (each link names its organization). */
  async postTargetLinks(db: Executor, batchIds: string[]) {
    return db
      .selectFrom('publish_batch_targets')
      .select(['batch_id', 'organization_id', 'post_target_id'])
      .where('batch_id', 'in', batchIds)
      .where('post_target_id', 'is not', null)
      .execute();
  },

  /**
   * Whether the batch's completion is announced, after taking the batch's announcement lock for the
   * caller's transaction (two workers never both record it).
   */
  async lockAndCheckAnnounced(tx: Executor, batchId: string): Promise<boolean> {
    await sql`select pg_advisory_xact_lock(hashtext(${`events:${batchId}`}))`.execute(tx);
    const already = await tx
      .selectFrom('events')
      .select('id')
      .where('sequence_key', '=', batchId)
      .where('type', '=', COMPLETED_EVENT)
      .executeTakeFirst();
    return already !== undefined;
  },
};
