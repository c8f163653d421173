/**
 * publish_batch.completed: once a minute the worker looks for batches whose targets have all finished
 * (none scheduled, queued or in flight) and records the event once per batch, in one transaction with
 * a check that it was not recorded before (the batch id is the event's sequence key).
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import { defineJob } from '../../platform/queue/job-queue.js';
import type { BatchesService } from './batches.service.js';

const COMPLETED = new Set(['published', 'partially_published', 'needs_attention', 'failed']);
const SCAN_LIMIT = 200;

/** Records publish_batch.completed for finished batches; answers how many it recorded. */
export async function recordCompletedBatches(deps: Pick<AppDeps, 'database' | 'events'>, service: BatchesService): Promise<number> {
  const db = deps.database.db;
  const candidates = await db
    .selectFrom('publish_batches as b')
    .select(['b.id', 'b.organization_id'])
    .where(sql<boolean>`not exists (select 1 from events e where e.sequence_key = b.id and e.type = 'publish_batch.completed')`)
    .where(sql<boolean>`exists (select 1 from publish_batch_targets bt where bt.batch_id = b.id and bt.post_target_id is not null)`)
    .where(
      sql<boolean>`not exists (select 1 from publish_batch_targets bt join publish_targets t on t.id = bt.post_target_id
        where bt.batch_id = b.id and t.state in ('draft', 'scheduled', 'queued', 'publishing', 'processing'))`,
    )
    .orderBy('b.id')
    .limit(SCAN_LIMIT)
    .execute();
  let recorded = 0;
  for (const c of candidates) {
    const status = await service.get(c.organization_id, c.id);
    if (!COMPLETED.has(status.status)) continue;
    await db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`events:${c.id}`}))`.execute(tx);
      const already = await tx
        .selectFrom('events')
        .select('id')
        .where('sequence_key', '=', c.id)
        .where('type', '=', 'publish_batch.completed')
        .executeTakeFirst();
      if (already) return;
      await deps.events.record(tx, { organizationId: c.organization_id, type: 'publish_batch.completed', data: status, sequenceKey: c.id });
      recorded += 1;
    });
  }
  return recorded;
}

export const batchCompletionJob = (deps: Pick<AppDeps, 'database' | 'events'>, service: BatchesService) =>
  defineJob<Record<string, never>>({
    name: 'batches.completion',
    cron: '* * * * *',
    queue: { policy: 'singleton', retryLimit: 1 },
    handler: async () => {
      await recordCompletedBatches(deps, service);
    },
  });
