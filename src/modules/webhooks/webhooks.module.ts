/**
 * Wires the webhooks area once per deps: the service, its subscription to the event outbox (fan-out
 * inside the event's transaction) and the worker's jobs.
 */
import type { AppDeps } from '../../app-deps.js';
import { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import { type DeliverJobData, WEBHOOK_DELIVER_JOB, WebhooksService } from './webhooks.service.js';

export interface WebhooksModule {
  service: WebhooksService;
  deliverJob: JobDefinition<DeliverJobData>;
  jobDefinitions: JobDefinition<any>[];
}

const modules = new WeakMap<AppDeps, WebhooksModule>();

export function webhooksModule(deps: AppDeps): WebhooksModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const client = new GuardedHttpClient({
    allowAddresses: [...deps.config.outboundAllowAddresses],
    environment: deps.config.env.NODE_ENV,
    timeoutMs: deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS,
  });
  const service = new WebhooksService(deps, client);
  deps.events.subscribeMany((tx, events) => service.fanOutMany(tx, events));
  const deliverJob = defineJob<DeliverJobData>({
    name: WEBHOOK_DELIVER_JOB,
    queue: { retryLimit: 3, retryDelay: 5 },
    concurrency: 16,
    pollingIntervalSeconds: 0.5,
    handler: async (data) => {
      await service.deliver(data);
    },
  });
  const pruneJob = defineJob<Record<string, never>>({
    name: 'webhooks.prune',
    cron: '17 3 * * *',
    handler: async () => {
      await service.prune();
    },
  });
  // events whose fan-out did not happen in their transaction are fanned out here
  const sweepJob = defineJob<Record<string, never>>({
    name: 'webhooks.sweep',
    cron: '* * * * *',
    handler: async () => {
      await service.sweep();
    },
  });
  const module: WebhooksModule = { service, deliverJob, jobDefinitions: [deliverJob, pruneJob, sweepJob] };
  modules.set(deps, module);
  return module;
}

/** The worker's webhook jobs (runtime.ts jobDefinitions). */
export function webhooksJobDefinitions(deps: AppDeps): JobDefinition<any>[] {
  return webhooksModule(deps).jobDefinitions;
}
