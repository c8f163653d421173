/**
 * publish_batch.completed: once a minute the worker looks for batches whose targets have all finished
 * (none scheduled, queued or in flight) and records the event once per batch, in one transaction with
 * a check that it was not recorded before (the batch id is the event's sequence key).
 */

import { defineJob } from '../../platform/queue/job-queue.js';
import type { AppDeps } from '../app-deps.js';
import type { Db } from '../database.js';
import { batchCompletionRepository } from './batch-completion.repository.js';
import type { BatchReads } from './batches.reads.js';

const COMPLETED = new Set(['published', 'partially_published', 'needs_attention', 'failed']);
const SCAN_LIMIT = 200;

/** Records publish_batch.completed for finished batches; answers how many it recorded. */
export async function recordCompletedBatches(deps: Pick<AppDeps, 'database' | 'events'>, reads: BatchReads): Promise<number> {
  const db = deps.database.db;
  // batches not announced yet with a publish target, oldest first; those with a target still open
  // (read through publishing's batch port) are skipped until SCAN_LIMIT finished ones are found
  const candidates: Array<{ id: string; organization_id: string }> = [];
  let afterId: string | null = null;
  while (candidates.length < SCAN_LIMIT) {
    const page = await batchCompletionRepository.unannounced(db, afterId, SCAN_LIMIT);
    if (page.length === 0) break;
    const open = await openBatches(db, reads, page);
    for (const c of page) if (!open.has(c.id) && candidates.length < SCAN_LIMIT) candidates.push(c);
    if (page.length < SCAN_LIMIT) break;
    afterId = page[page.length - 1]!.id;
  }
  let recorded = 0;
  for (const c of candidates) {
    const status = await reads.get(c.organization_id, c.id);
    if (!COMPLETED.has(status.status)) continue;
    await db.transaction().execute(async (tx) => {
      if (await batchCompletionRepository.lockAndCheckAnnounced(tx, c.id)) return;
      await deps.events.record(tx, { organizationId: c.organization_id, type: 'publish_batch.completed', data: status, sequenceKey: c.id });
      recorded += 1;
    });
  }
  return recorded;
}

/** The batches of the page with a publish target not finished yet (draft, scheduled, queued or in flight). */
async function openBatches(db: Db, reads: BatchReads, page: Array<{ id: string; organization_id: string }>): Promise<Set<string>> {
  const links = await batchCompletionRepository.postTargetLinks(
    db,
    page.map((c) => c.id),
  );
  const byOrganization = new Map<string, typeof links>();
  for (const l of links) byOrganization.set(l.organization_id, [...(byOrganization.get(l.organization_id) ?? []), l]);
  const open = new Set<string>();
  for (const [organizationId, rows] of byOrganization) {
    const targets = await reads.publishing.targets(
      db,
      organizationId,
      rows.map((r) => r.post_target_id!),
    );
    const openTargets = new Set(targets.filter((t) => t.open).map((t) => t.id));
    for (const r of rows) if (openTargets.has(r.post_target_id!)) open.add(r.batch_id);
  }
  return open;
}

export const batchCompletionJob = (deps: Pick<AppDeps, 'database' | 'events'>, reads: BatchReads) =>
  defineJob<Record<string, never>>({
    name: 'batches.completion',
    cron: '* * * * *',
    queue: { policy: 'singleton', retryLimit: 1 },
    handler: async () => {
      await recordCompletedBatches(deps, reads);
    },
  });
