/** Periodic removal of tool API idempotency records past their 24 hours (reads already ignore them). */

import { defineJob } from '../../platform/queue/job-queue.js';
import type { Db } from '../database.js';
import { toolIdempotencyRepository } from './tool-idempotency.repository.js';

export const TOOLS_IDEMPOTENCY_PRUNE_JOB = 'tools.idempotency.prune';

export function toolsIdempotencyPruneJob(db: Db, clock: () => Date) {
  return defineJob<Record<string, never>>({
    name: TOOLS_IDEMPOTENCY_PRUNE_JOB,
    cron: '17 * * * *',
    queue: { policy: 'singleton', retryLimit: 2 },
    handler: async () => {
      await toolIdempotencyRepository.pruneExpired(db, clock());
    },
  });
}
