/**
 * The webhooks area: the service, its reaction to every recorded event (fan-out inside the event's
 * transaction, subscribed to the outbox by the root) and the worker's jobs.
 */
import type { FastifyInstance } from 'fastify';
import type { Env } from '../../config.js';
import type { AreaModule } from '../../http/area-module.js';
import { pruneOlderThan } from '../../platform/clock.js';
import type { OutboxBatchListener } from '../../platform/events/outbox.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import type { AppDeps } from '../app-deps.js';
import type { PruneStep } from '../maintenance/maintenance.module.js';
import { DeliveryClaimLoop } from './webhooks.claim-loop.js';
import { WebhookDeliverer } from './webhooks.delivery.js';
import { type DeliverJobData, WEBHOOK_DELIVER_JOB, WebhookFanOut } from './webhooks.fanout.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { WebhooksService } from './webhooks.service.js';
import { webhooksRetentionRepository as retention } from './webhooks-retention.repository.js';

/** The delivery log's and the event outbox's retention (SERVICE_WEBHOOK_RETENTION_DAYS, SERVICE_EVENT_RETENTION_DAYS). */
function webhooksPruneSteps(env: Pick<Env, 'SERVICE_WEBHOOK_RETENTION_DAYS' | 'SERVICE_EVENT_RETENTION_DAYS'>): PruneStep[] {
  return [
    { name: 'webhook_deliveries', prune: pruneOlderThan(env.SERVICE_WEBHOOK_RETENTION_DAYS, retention.pruneDeliveries) },
    { name: 'events', prune: pruneOlderThan(env.SERVICE_EVENT_RETENTION_DAYS, retention.pruneEvents) },
  ];
}

export type WebhooksPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'encryptor' | 'jobs' | 'clock' | 'metrics'> & {
  /** the client deliveries are sent with (its timeout is the delivery timeout setting) */
  deliveryClient: GuardedHttpClient;
};

export interface WebhooksModule extends AreaModule {
  /** endpoints, delivery log, test, redeliver, recover (the routes' service) */
  service: WebhooksService;
  /** events to deliveries: the outbox listener, the sweep */
  fanout: WebhookFanOut;
  /** one attempt of a claimed delivery */
  deliverer: WebhookDeliverer;
  /** the queue whose worker runs the delivery claim loop (its jobs, left by an older version, do nothing) */
  deliverJob: JobDefinition<DeliverJobData>;
  /** subscribed by the root to maintenance's prune: the delivery log, then the events no delivery needs any more */
  pruneSteps: PruneStep[];
  /** subscribed by the root to the event outbox (every event of one record/recordMany at once) */
  onEvents: OutboxBatchListener;
}

export function createWebhooksModule(ports: WebhooksPorts): WebhooksModule {
  const client = ports.deliveryClient;
  const fanout = new WebhookFanOut(ports);
  const service = new WebhooksService(ports, client, fanout);
  const deliverer = new WebhookDeliverer(ports, client);
  const deliverJob = defineJob<DeliverJobData>({
    name: WEBHOOK_DELIVER_JOB,
    queue: { retryLimit: 3, retryDelay: 5 },
    pollingIntervalSeconds: 5,
    // the deliveries are claimed from their table, as many at once as the setting allows
    loop: (logger) => new DeliveryClaimLoop(deliverer, ports.config.env.SERVICE_WEBHOOK_WORKER_CONCURRENCY, logger),
    handler: async () => {
      // a job of an older version: its delivery is claimable from the table (migration 0023)
    },
  });
  // events whose fan-out did not happen in their transaction (a delivery whose worker died is claimed
  // again once its lease ends, by the claim loop)
  const sweepJob = defineJob<Record<string, never>>({
    name: 'webhooks.sweep',
    cron: '* * * * *',
    handler: async () => {
      await fanout.sweep();
    },
  });
  const module: WebhooksModule = {
    service,
    fanout,
    deliverer,
    deliverJob,
    read: undefined,
    jobs: [deliverJob, sweepJob],
    pruneSteps: webhooksPruneSteps(ports.config.env),
    onEvents: (tx, events) => fanout.fanOutMany(tx, events),
    routes: (app: FastifyInstance) => registerWebhookRoutes(app, ports, module),
  };
  return module;
}
