/** The provider webhooks area: settings, inbound processing, provisioning and their jobs. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import { pruneOlderThan } from '../../platform/clock.js';
import { defineJob } from '../../platform/queue/job-queue.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { AppDeps } from '../app-deps.js';
import type { ChannelsReadPort, ChannelsTokenProblemsPort } from '../channels/channels.module.js';
import type { CommentsModule } from '../comments/comments.module.js';
import type { PruneStep } from '../maintenance/maintenance.module.js';
import type { PublishingNoticesPort } from '../publishing/publishing.module.js';
import { InboundWebhooks, PROVIDER_WEBHOOK_PROCESS_QUEUE } from './provider-webhooks.inbound.js';
import { WebhookProvisioning } from './provider-webhooks.provision.js';
import { registerProviderWebhookRoutes } from './provider-webhooks.routes.js';
import { providerWebhooksRetentionRepository } from './provider-webhooks-retention.repository.js';
import { WebhookSettings } from './webhook-settings.js';

/** Renews YouTube WebSub leases before they end (WebhookProvisioning.renewDue). */
export const PROVIDER_WEBHOOK_RENEW_JOB = 'provider-webhooks.renew';

export type ProviderWebhooksPorts = Pick<AppDeps, 'config' | 'database' | 'jobs' | 'events' | 'clock'> & {
  registry: ProviderRegistry;
  channels: ChannelsReadPort & ChannelsTokenProblemsPort;
  comments: CommentsModule;
  notices: PublishingNoticesPort;
};

export interface ProviderWebhooksModule extends AreaModule {
  inbound: InboundWebhooks;
  provisioning: WebhookProvisioning;
  /** subscribed by the root to maintenance's prune: processed deliveries older than SERVICE_PROVIDER_WEBHOOK_RETENTION_DAYS */
  pruneProcessedDeliveries: PruneStep;
}

export function createProviderWebhooksModule(ports: ProviderWebhooksPorts): ProviderWebhooksModule {
  const { registry, channels } = ports;
  const settings = new WebhookSettings(ports, registry);
  const inbound = new InboundWebhooks(
    ports,
    settings,
    () => ports.comments,
    () => ports.notices,
    channels,
  );
  const provisioning = new WebhookProvisioning(ports, settings, channels);
  const module: ProviderWebhooksModule = {
    inbound,
    provisioning,
    pruneProcessedDeliveries: {
      name: 'provider_webhook_deliveries',
      prune: pruneOlderThan(ports.config.env.SERVICE_PROVIDER_WEBHOOK_RETENTION_DAYS, providerWebhooksRetentionRepository.pruneProcessed),
    },
    read: undefined,
    jobs: [
      defineJob<{ deliveryId: string }>({
        ...PROVIDER_WEBHOOK_PROCESS_QUEUE,
        concurrency: 4,
        pollingIntervalSeconds: 0.5,
        handler: async (data) => inbound.process(data.deliveryId),
      }),
      defineJob<Record<string, never>>({
        name: PROVIDER_WEBHOOK_RENEW_JOB,
        cron: '*/15 * * * *',
        handler: async () => {
          await provisioning.renewDue();
        },
      }),
    ],
    routes: (app: FastifyInstance) => registerProviderWebhookRoutes(app, module),
  };
  return module;
}
