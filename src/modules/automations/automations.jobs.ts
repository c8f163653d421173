/** The automations worker side: run execution and the scheduler's clock tick. */

import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import type { AppDeps } from '../app-deps.js';
import { AUTOMATION_RUN_QUEUE, type AutomationsService } from './automations.service.js';
import type { AutomationRunner } from './runner.js';
import { enqueueDueRuns } from './scheduler.js';

const AUTOMATION_SCHEDULER_QUEUE = 'automations.scheduler';

export function automationJobDefinitions(
  deps: Pick<AppDeps, 'database' | 'clock'>,
  service: AutomationsService,
  runner: AutomationRunner,
): JobDefinition<any>[] {
  return [
    defineJob<{ organizationId: string; automationRunId: string }>({
      name: AUTOMATION_RUN_QUEUE,
      concurrency: 2,
      pollingIntervalSeconds: 0.5,
      handler: async (data) => {
        await runner.execute(data.organizationId, data.automationRunId);
      },
    }),
    defineJob<Record<string, never>>({
      name: AUTOMATION_SCHEDULER_QUEUE,
      cron: '* * * * *',
      handler: async () => {
        await enqueueDueRuns(deps, service);
      },
    }),
  ];
}
