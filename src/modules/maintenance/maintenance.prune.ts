/**
 * One run of the maintenance prune outside the job (scripts, benchmarks, tests): every subscribed
 * step, batch after batch, with the configured batch size. `pruneOnce({ ...root.deps, prunes: root.prunes }, now)`.
 */
import type { Env } from '../../config.js';
import type { Subscribers } from '../../platform/events/subscribers.js';
import type { Db } from '../database.js';
import { type PruneOptions, type PruneStep, runMaintenance } from './maintenance.jobs.js';

/** Rows removed by step; the steps are named for the table they prune (older ones for what they remove). */
export type PruneCounts = Record<string, number>;

export interface PrunePorts {
  database: { db: Db };
  config: { env: Pick<Env, 'SERVICE_PRUNE_BATCH_SIZE' | 'SERVICE_PRUNE_MAX_BATCHES'> };
  prunes: Subscribers<PruneStep>;
}

export const pruneOptions = (env: PrunePorts['config']['env']): PruneOptions => ({
  batchSize: env.SERVICE_PRUNE_BATCH_SIZE,
  maxBatches: env.SERVICE_PRUNE_MAX_BATCHES,
});

/** Prunes every table once as the maintenance job does at `now`; answers the removed rows by step. */
export async function pruneOnce(ports: PrunePorts, now: Date): Promise<PruneCounts> {
  return runMaintenance(ports.database.db, now, ports.prunes.all(), pruneOptions(ports.config.env));
}
