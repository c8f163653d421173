/**
 * Periodic maintenance, proving the job path end to end: prunes heartbeats of workers that vanished
 * without a graceful stop, and runs the prune steps the areas provide for their own tables (identity's
 * expired dashboard sessions, webhooks' delivery log and the event outbox, ...), which the root
 * subscribes to the maintenance module's list.
 *
 * Every step deletes in bounded batches: one statement removes at most `batchSize` rows chosen by an
 * index (`delete ... where id in (select id ... limit n for update skip locked)`), each its own short
 * transaction, so the prune never holds many row locks, never waits for a row a request holds, and a
 * large backlog (a year of rows after the setting is lowered) is worked off over several runs.
 */
import type { Subscribers } from '../../platform/events/subscribers.js';
import { defineJob } from '../../platform/queue/job-queue.js';
import type { Db } from '../database.js';
import { maintenanceRepository } from './maintenance.repository.js';

/** An area's prune of its own rows that are no longer needed: one batch of at most `limit` rows, answering how many it removed. */
export interface PruneStep {
  name: string;
  prune(db: Db, now: Date, limit: number): Promise<number>;
}

export interface PruneOptions {
  /** rows per delete statement */
  batchSize: number;
  /** most statements per step in one run */
  maxBatches: number;
}

const DEFAULT_PRUNE_OPTIONS: PruneOptions = { batchSize: 1_000, maxBatches: 200 };

const staleWorkerHeartbeats: PruneStep = {
  name: 'staleWorkerHeartbeats',
  prune: (db, now) => maintenanceRepository.pruneStaleHeartbeats(db, now),
};

/** Runs the areas' prune steps, then maintenance's own, each batch after batch; answers the removed rows by step name. */
export async function runMaintenance(
  db: Db,
  now: Date,
  steps: readonly PruneStep[],
  options: PruneOptions = DEFAULT_PRUNE_OPTIONS,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const step of [...steps, staleWorkerHeartbeats]) {
    let total = 0;
    for (let batch = 0; batch < options.maxBatches; batch++) {
      const removed = await step.prune(db, now, options.batchSize);
      total += removed;
      if (removed < options.batchSize) break;
    }
    out[step.name] = (out[step.name] ?? 0) + total;
  }
  return out;
}

export const maintenanceJob = (db: Db, clock: () => Date, steps: Subscribers<PruneStep>, options: PruneOptions) =>
  defineJob<Record<string, never>>({
    name: 'maintenance.prune',
    cron: '* * * * *',
    queue: { policy: 'singleton', retryLimit: 2 },
    handler: async () => {
      await runMaintenance(db, clock(), steps.all(), options);
    },
  });
