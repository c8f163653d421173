/**
 * Periodic maintenance, proving the job path end to end: prunes expired dashboard sessions and
 * heartbeats of workers that vanished without a graceful stop. Areas add their own prune steps
 * (expired idempotency records, ...) to PRUNE_STEPS.
 */
import { sql } from 'kysely';
import { defineJob } from '../../platform/queue/job-queue.js';
import type { Db } from '../database.js';

export type PruneStep = (db: Db, now: Date) => Promise<number>;

export const PRUNE_STEPS: Record<string, PruneStep> = {
  expiredSessions: async (db, now) =>
    Number((await db.deleteFrom('auth_sessions').where('expires_at', '<', now).executeTakeFirst()).numDeletedRows),
  staleWorkerHeartbeats: async (db, now) =>
    Number(
      (await db.deleteFrom('worker_heartbeats').where('beat_at', '<', sql<Date>`${now}::timestamptz - interval '1 day'`).executeTakeFirst())
        .numDeletedRows,
    ),
};

export async function runMaintenance(db: Db, now: Date): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, step] of Object.entries(PRUNE_STEPS)) out[name] = await step(db, now);
  return out;
}

export const maintenanceJob = (db: Db, clock: () => Date) =>
  defineJob<Record<string, never>>({
    name: 'maintenance.prune',
    cron: '* * * * *',
    queue: { policy: 'singleton', retryLimit: 2 },
    handler: async () => {
      await runMaintenance(db, clock());
    },
  });
