/** The analytics area's jobs: the periodic sync (every 10 minutes; what it does is in analytics.sync.ts). */

import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import type { AppDeps } from '../app-deps.js';
import type { AnalyticsSync } from './analytics.sync.js';

export const ANALYTICS_SYNC_JOB = 'analytics.sync';

export function analyticsJobDefinitions(deps: Pick<AppDeps, 'clock'>, sync: AnalyticsSync): JobDefinition<any>[] {
  return [
    defineJob<Record<string, never>>({
      name: ANALYTICS_SYNC_JOB,
      cron: '*/10 * * * *',
      queue: { policy: 'singleton', retryLimit: 0 },
      handler: async () => {
        await sync.run(deps.clock.now());
      },
    }),
  ];
}
