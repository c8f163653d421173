/** Wires the provider webhooks area once per deps: settings, inbound processing, provisioning, jobs. */
import type { AppDeps } from '../../app-deps.js';
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import { createProviderRegistry } from '../../providers/registry.js';
import { TokenVault } from '../channels/token-vault.js';
import { commentsModule } from '../comments/comments.module.js';
import { publishingModule } from '../publishing/publishing.module.js';
import { InboundWebhooks, PROVIDER_WEBHOOK_PROCESS_QUEUE } from './provider-webhooks.inbound.js';
import { WebhookProvisioning } from './provider-webhooks.provision.js';
import { WebhookSettings } from './webhook-settings.js';

/** Renews YouTube WebSub leases before they end (WebhookProvisioning.renewDue). */
export const PROVIDER_WEBHOOK_RENEW_JOB = 'provider-webhooks.renew';

export interface ProviderWebhooksModule {
  inbound: InboundWebhooks;
  provisioning: WebhookProvisioning;
  jobDefinitions: JobDefinition<any>[];
}

const modules = new WeakMap<AppDeps, ProviderWebhooksModule>();

export function providerWebhooksModule(deps: AppDeps): ProviderWebhooksModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const registry = createProviderRegistry(deps.config);
  const settings = new WebhookSettings(deps, registry);
  const inbound = new InboundWebhooks(
    deps,
    settings,
    () => commentsModule(deps),
    () => publishingModule(deps).notices,
  );
  const provisioning = new WebhookProvisioning(deps, settings, {
    db: deps.database.db,
    vault: new TokenVault(deps.encryptor, deps.config),
    registry,
  });
  const module: ProviderWebhooksModule = {
    inbound,
    provisioning,
    jobDefinitions: [
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
      defineJob<Record<string, never>>({
        name: 'provider-webhooks.prune',
        cron: '41 3 * * *',
        handler: async () => {
          await inbound.prune();
        },
      }),
    ],
  };
  modules.set(deps, module);
  return module;
}
