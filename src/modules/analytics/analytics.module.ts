/** Wires the analytics area once per deps: the service and the worker's periodic sync job. */
import type { AppDeps } from '../../app-deps.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import { AnalyticsService } from './analytics.service.js';

export const ANALYTICS_SWEEP_JOB = 'analytics.sweep';

export interface AnalyticsModule {
  service: AnalyticsService;
  jobDefinitions: JobDefinition<any>[];
}

const modules = new WeakMap<AppDeps, AnalyticsModule>();

export function analyticsModule(deps: AppDeps): AnalyticsModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const service = new AnalyticsService(deps);
  const sweepJob = defineJob<Record<string, never>>({
    name: ANALYTICS_SWEEP_JOB,
    cron: deps.config.env.SERVICE_ANALYTICS_SYNC_CRON,
    queue: { policy: 'singleton' },
    handler: async () => {
      await service.sweep(deps.config.env.SERVICE_ANALYTICS_SYNC_BUDGET_PER_PLATFORM);
    },
  });
  const module: AnalyticsModule = { service, jobDefinitions: [sweepJob] };
  modules.set(deps, module);
  return module;
}

/** The worker's analytics jobs (runtime.ts jobDefinitions). */
export function analyticsJobDefinitions(deps: AppDeps): JobDefinition<any>[] {
  return analyticsModule(deps).jobDefinitions;
}
