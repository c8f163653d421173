/**
 * The webhooks area: the service, its reaction to every recorded event (fan-out inside the event's
 * transaction, subscribed to the outbox by the root) and the worker's jobs.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import type { OutboxListener } from '../../platform/events/outbox.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { type DeliverJobData, WEBHOOK_DELIVER_JOB, WebhooksService } from './webhooks.service.js';

export type WebhooksPorts = AppDeps & {
  /** the client deliveries are sent with (its timeout is the delivery timeout setting) */
  deliveryClient: GuardedHttpClient;
};

export interface WebhooksModule extends AreaModule {
  service: WebhooksService;
  deliverJob: JobDefinition<DeliverJobData>;
  /** subscribed by the root to the event outbox */
  onEvent: OutboxListener;
}

export function createWebhooksModule(ports: WebhooksPorts): WebhooksModule {
  const service = new WebhooksService(ports, ports.deliveryClient);
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
  const module: WebhooksModule = {
    service,
    deliverJob,
    read: undefined,
    jobs: [deliverJob, pruneJob, sweepJob],
    onEvent: (tx, event) => service.fanOut(tx, event),
    routes: (app: FastifyInstance) => registerWebhookRoutes(app, ports, module),
  };
  return module;
}
