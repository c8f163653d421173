/**
 * The webhooks area: the service, its reaction to every recorded event (fan-out inside the event's
 * transaction, subscribed to the outbox by the root) and the worker's jobs.
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { OutboxBatchListener } from '../../platform/events/outbox.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import type { AppDeps } from '../app-deps.js';
import { WebhookDeliverer } from './webhooks.delivery.js';
import { type DeliverJobData, WEBHOOK_DELIVER_JOB, WebhookFanOut } from './webhooks.fanout.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { WebhooksService } from './webhooks.service.js';

export type WebhooksPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'encryptor' | 'jobs' | 'clock' | 'metrics'> & {
  /** the client deliveries are sent with (its timeout is the delivery timeout setting) */
  deliveryClient: GuardedHttpClient;
};

export interface WebhooksModule extends AreaModule {
  /** endpoints, delivery log, test, redeliver, recover (the routes' service) */
  service: WebhooksService;
  /** events to deliveries: the outbox listener, the sweep, the retention prune */
  fanout: WebhookFanOut;
  /** the delivery job's attempt */
  deliverer: WebhookDeliverer;
  deliverJob: JobDefinition<DeliverJobData>;
  /** subscribed by the root to the event outbox (every event of one record/recordMany at once) */
  onEvents: OutboxBatchListener;
}

export function createWebhooksModule(ports: WebhooksPorts): WebhooksModule {
  const client = ports.deliveryClient;
  const fanout = new WebhookFanOut(ports);
  const service = new WebhooksService(ports, client, fanout);
  const deliverer = new WebhookDeliverer(ports, client, fanout);
  const deliverJob = defineJob<DeliverJobData>({
    name: WEBHOOK_DELIVER_JOB,
    queue: { retryLimit: 3, retryDelay: 5 },
    concurrency: ports.config.env.SERVICE_WEBHOOK_WORKER_CONCURRENCY,
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
  const module: WebhooksModule = {
    service,
    fanout,
    deliverer,
    deliverJob,
    read: undefined,
    jobs: [deliverJob, pruneJob, sweepJob],
    onEvents: (tx, events) => fanout.fanOutMany(tx, events),
    routes: (app: FastifyInstance) => registerWebhookRoutes(app, ports, module),
  };
  return module;
}
