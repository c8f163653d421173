/**
 * Periodic maintenance, proving the job path end to end: prunes heartbeats of workers that vanished
 * without a graceful stop, and runs the prune steps the areas provide for their own tables (identity's
 * expired dashboard sessions), which the root subscribes to the maintenance module's list.
 */
import { sql } from 'kysely';
import type { Subscribers } from '../../platform/events/subscribers.js';
import { defineJob } from '../../platform/queue/job-queue.js';
import type { Db } from '../database.js';

/** An area's prune of its own expired rows: answers how many it removed. */
export interface PruneStep {
  name: string;
  prune(db: Db, now: Date): Promise<number>;
}

const staleWorkerHeartbeats: PruneStep = {
  name: 'staleWorkerHeartbeats',
  prune: async (db, now) =>
    Number(
      (await db.deleteFrom('worker_heartbeats').where('beat_at', '<', sql<Date>`${now}::timestamptz - interval '1 day'`).executeTakeFirst())
        .numDeletedRows,
    ),
};

/** Runs the areas' prune steps, then maintenance's own; answers the removed rows by step name. */
export async function runMaintenance(db: Db, now: Date, steps: readonly PruneStep[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const step of [...steps, staleWorkerHeartbeats]) out[step.name] = await step.prune(db, now);
  return out;
}

export const maintenanceJob = (db: Db, clock: () => Date, steps: Subscribers<PruneStep>) =>
  defineJob<Record<string, never>>({
    name: 'maintenance.prune',
    cron: '* * * * *',
    queue: { policy: 'singleton', retryLimit: 2 },
    handler: async () => {
      await runMaintenance(db, clock(), steps.all());
    },
  });
