/**
 * The composition root: builds every shared piece once (shared.ts), builds each area with only the
 * ports it uses, wires the cross-area subscriptions, and answers the ordered list of modules (whose
 * routes buildApp registers) and the one registry of job definitions (which the worker runs). The API
 * and the worker of one process share one Root; a CLI command composes its own (cli-root.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AreaModule } from '../http/area-module.js';
import { type AnalyticsModule, createAnalyticsModule } from '../modules/analytics/analytics.module.js';
import type { AppDeps } from '../modules/app-deps.js';
import { type AutomationsModule, createAutomationsModule } from '../modules/automations/automations.module.js';
import { type BatchesModule, createBatchesModule } from '../modules/batches/batches.module.js';
import { type BrandsModule, createBrandsModule } from '../modules/brands/brands.module.js';
import { type ChannelsModule, createChannelsModule, type DisconnectHook } from '../modules/channels/channels.module.js';
import { type CommentsModule, createCommentsModule } from '../modules/comments/comments.module.js';
import { createDashboardModule } from '../modules/dashboard/dashboard.module.js';
import { createHealthModule } from '../modules/health/health.module.js';
import { createIdentityModule, type IdentityModule } from '../modules/identity/identity.module.js';
import { createMaintenanceModule, type PruneStep } from '../modules/maintenance/maintenance.module.js';
import { createMcpModule } from '../modules/mcp/mcp.module.js';
import { createMediaModule, type MediaModule, type MediaReferenceCheck } from '../modules/media/media.module.js';
import { createOperationsModule } from '../modules/operations/operations.module.js';
import { createProfilesModule, type ProfilesModule } from '../modules/profiles/profiles.module.js';
import { createProvidersModule } from '../modules/provider-api/provider-api.module.js';
import { createProviderWebhooksModule, type ProviderWebhooksModule } from '../modules/provider-webhooks/provider-webhooks.module.js';
import { createPublishingModule, type PublishingModule, publishOutcomeLog } from '../modules/publishing/publishing.module.js';
import { createToolsModule, type ToolsModule } from '../modules/tools/tools.module.js';
import { createWebhooksModule, type WebhooksModule } from '../modules/webhooks/webhooks.module.js';
import { Subscribers } from '../platform/events/subscribers.js';
import type { JobDefinition } from '../platform/queue/job-queue.js';
import { createQueueInspector } from '../platform/queue/queue-inspector.js';
import type { SandboxHandle } from '../sandbox/sandbox.plugin.js';
import { providerAppConfigs } from './provider-configs.js';
import { buildSharedPieces, type SharedPieces } from './shared.js';

export interface Root {
  deps: AppDeps;
  shared: SharedPieces;
  /** the areas by name (tests and scripts reach an area's services here) */
  areas: {
    media: MediaModule;
    channels: ChannelsModule;
    profiles: ProfilesModule;
    publishing: PublishingModule;
    batches: BatchesModule;
    webhooks: WebhooksModule;
    comments: CommentsModule;
    analytics: AnalyticsModule;
    automations: AutomationsModule;
    brands: BrandsModule;
    identity: IdentityModule;
    tools: ToolsModule;
    providerWebhooks: ProviderWebhooksModule;
  };
  /** every area in the order its routes are registered */
  modules: AreaModule<unknown>[];
  /** every job the worker runs */
  jobs: JobDefinition<any>[];
  /** cross-area reactions: a channel disconnect, a media delete's reference check, the periodic prune */
  disconnects: Subscribers<DisconnectHook>;
  mediaReferences: Subscribers<MediaReferenceCheck>;
  prunes: Subscribers<PruneStep>;
  /** the simulators mounted by the last app built from this root (sandbox mode only) */
  sandbox: SandboxHandle | null;
}

export interface RootOptions {
  /** the process logger: publish outcomes are logged here */
  logger?: Logger;
}

export function composeRoot(deps: AppDeps, opts: RootOptions = {}): Root {
  const shared = buildSharedPieces(deps);
  const { registry, vault } = shared;
  const disconnects = new Subscribers<DisconnectHook>();
  const mediaReferences = new Subscribers<MediaReferenceCheck>();
  const prunes = new Subscribers<PruneStep>();

  const outbound = shared.outbound();
  const brands = createBrandsModule(deps);
  const media = createMediaModule({ ...deps, stores: shared.mediaStores, outbound, references: mediaReferences, brands: brands.read });
  const channels = createChannelsModule({ ...deps, registry, vault, disconnects, brands: brands.read });
  const profiles = createProfilesModule({ ...deps, channels: channels.read, brands: brands.read });
  const publishing = createPublishingModule({
    ...deps,
    registry,
    channels: channels.read,
    tokenProblems: channels.tokenProblems,
    profiles: profiles.read,
    brands: brands.read,
    media: media.read.publishing,
    outbound,
    queue: createQueueInspector(),
  });
  const batches = createBatchesModule({ ...deps, publishing: publishing.read.batches, profiles: profiles.read, brands: brands.read });
  const webhooks = createWebhooksModule({
    ...deps,
    deliveryClient: shared.outbound({ timeoutMs: deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS }),
  });
  const comments = createCommentsModule({
    ...deps,
    registry,
    channels: channels.read,
    brands: brands.read,
    profiles: profiles.read,
    targets: publishing.read.targets,
  });
  const analytics = createAnalyticsModule({
    ...deps,
    channels: channels.read,
    tokenProblems: channels.tokenProblems,
    brands: brands.read,
    targets: publishing.read.targets,
  });
  const automations = createAutomationsModule({
    ...deps,
    brands: brands.read,
    channels: channels.read,
    profiles: profiles.read,
    runner: {
      plans: publishing.plans,
      slots: publishing.read.slots,
      imports: media.read.imports,
      batches: batches.read.committer,
      products: brands.read.allProducts,
    },
    feedClient: shared.outbound({
      timeoutMs: deps.config.env.SERVICE_AUTOMATION_FEED_TIMEOUT_MS,
      maxBytes: deps.config.env.SERVICE_AUTOMATION_FEED_MAX_BYTES,
      userAgent: 'service-api-feed-fetch/1',
    }),
  });
  const identity = createIdentityModule(deps);
  const tools = createToolsModule({ ...deps, users: identity.read.users, usersAdmin: identity.usersAdmin });
  const providerWebhooks = createProviderWebhooksModule({
    ...deps,
    registry,
    channels: { ...channels.read, ...channels.tokenProblems },
    comments,
    notices: publishing.notices,
  });

  // cross-area subscriptions: the only place one area's reaction is attached to another's event
  disconnects.subscribe(profiles.onChannelDisconnect);
  disconnects.subscribe(publishing.onChannelDisconnect);
  disconnects.subscribe(batches.onChannelDisconnect);
  mediaReferences.subscribe(publishing.mediaReferenceCheck);
  prunes.subscribe(identity.pruneExpiredSessions);
  prunes.subscribe(batches.pruneExpiredPreviews);
  prunes.subscribe(identity.pruneExpiredIdentityProviderLogins);
  prunes.subscribe(identity.pruneUnusedClients);
  for (const step of identity.pruneExpiredSecrets) prunes.subscribe(step);
  // the delivery log before the events: an event goes once no delivery names it
  for (const step of webhooks.pruneSteps) prunes.subscribe(step);
  prunes.subscribe(providerWebhooks.pruneProcessedDeliveries);
  prunes.subscribe(automations.pruneFinishedRuns);
  prunes.subscribe(tools.pruneExpiredIdempotency);
  deps.events.subscribeFanOut(webhooks.onEvents);
  if (opts.logger) deps.events.subscribeMany(publishOutcomeLog(opts.logger), 'publish-outcome-log');

  const root: Root = {
    deps,
    shared,
    areas: {
      media,
      channels,
      profiles,
      publishing,
      batches,
      webhooks,
      comments,
      analytics,
      automations,
      brands,
      identity,
      tools,
      providerWebhooks,
    },
    modules: [],
    jobs: [],
    disconnects,
    mediaReferences,
    prunes,
    sandbox: null,
  };
  const sandbox: AreaModule = {
    read: undefined,
    jobs: [],
    async routes(app: FastifyInstance) {
      // loaded only in sandbox mode: the simulators, their contract descriptions and openapi-backend are
      // tens of MB of a process that talks to the live platforms
      if (registry.mode === 'sandbox') {
        const { registerSandbox } = await import('../sandbox/sandbox.plugin.js');
        root.sandbox = await registerSandbox(app, providerAppConfigs(deps.config), { dataDir: deps.config.dataDir });
      }
    },
  };
  root.modules = [
    createHealthModule({ ...deps, storageHealth: media.read.storageHealth }),
    brands,
    tools,
    media,
    channels,
    createProvidersModule({ ...deps, registry, channels: channels.read }),
    profiles,
    sandbox,
    publishing,
    identity,
    createMcpModule({ ...deps, identity: identity.read }),
    batches,
    webhooks,
    comments,
    analytics,
    automations,
    createOperationsModule(deps),
    providerWebhooks,
    createDashboardModule(),
    createMaintenanceModule({ ...deps, prunes }),
  ];
  root.jobs = root.modules.flatMap((m) => m.jobs);
  return root;
}
