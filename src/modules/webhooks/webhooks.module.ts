/**
 * Wires the webhooks area once per deps: the service, its subscription to the event outbox (fan-out
 * inside the event's transaction) and the worker's jobs.
 */
import type { AppDeps } from '../../app-deps.js';
import { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import { WebhookDeliverer } from './webhooks.delivery.js';
import { type DeliverJobData, WEBHOOK_DELIVER_JOB, WebhookFanOut } from './webhooks.fanout.js';
import { WebhooksService } from './webhooks.service.js';

export interface WebhooksModule {
  /** endpoints, delivery log, test, redeliver, recover (the routes' service) */
  service: WebhooksService;
  /** events to deliveries: the outbox listener, the sweep, the retention prune */
  fanout: WebhookFanOut;
  /** the delivery job's attempt */
  deliverer: WebhookDeliverer;
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
  const fanout = new WebhookFanOut(deps);
  const service = new WebhooksService(deps, client, fanout);
  const deliverer = new WebhookDeliverer(deps, client, fanout);
  deps.events.subscribeMany((tx, events) => fanout.fanOutMany(tx, events));
  const deliverJob = defineJob<DeliverJobData>({
    name: WEBHOOK_DELIVER_JOB,
    queue: { retryLimit: 3, retryDelay: 5 },
    concurrency: deps.config.env.SERVICE_WEBHOOK_WORKER_CONCURRENCY,
    pollingIntervalSeconds: 0.5,
    handler: async (data) => {
      await deliverer.deliver(data);
    },
  });
  const pruneJob = defineJob<Record<string, never>>({
    name: 'webhooks.prune',
    cron: '17 3 * * *',
    handler: async () => {
      await fanout.prune();
    },
  });
  // events whose fan-out did not happen in their transaction, and deliveries whose job died with a worker
  const sweepJob = defineJob<Record<string, never>>({
    name: 'webhooks.sweep',
    cron: '* * * * *',
    handler: async () => {
      await fanout.sweep();
      await fanout.reclaim();
    },
  });
  const module: WebhooksModule = { service, fanout, deliverer, deliverJob, jobDefinitions: [deliverJob, pruneJob, sweepJob] };
  modules.set(deps, module);
  return module;
}

/** The worker's webhook jobs (runtime.ts jobDefinitions). */
export function webhooksJobDefinitions(deps: AppDeps): JobDefinition<any>[] {
  return webhooksModule(deps).jobDefinitions;
}
