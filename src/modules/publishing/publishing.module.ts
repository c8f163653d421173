/**
 * The publishing area: plans, jobs and targets, the publish engine and its worker jobs. The root
 * hands it the provider registry and the read ports of the areas whose rows it reads (channels and
 * profiles, brands, the media library), and subscribes its reactions to other areas' events: the media
 * reference check (a pending publish target keeps its media) and the channel disconnect hook.
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { QueueInspector } from '../../platform/queue/queue-inspector.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort, ChannelsTokenProblemsPort } from '../channels/channels.module.js';
import type { Executor } from '../database.js';
import type { MediaReadPort, MediaReferenceCheck } from '../media/media.module.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import { ChannelGateway } from './channel-gateway.js';
import { FirstCommentStep } from './first-comment.js';
import { MediaAccess } from './media-access.js';
import { PlansService } from './plans.service.js';
import { ProviderNotices } from './provider-notices.js';
import { publishJobDefinitions } from './publish.jobs.js';
import { PublishApprovalsService } from './publish-approvals.service.js';
import { PublishEngine } from './publish-engine.js';
import { PublishJobsService } from './publish-jobs.service.js';
import { PublishLimiter } from './publish-policies.js';
import { DRAFT_STATES, IN_FLIGHT_STATES, type TargetEvent, TRANSITIONS } from './publish-states.js';
import { type PublishingBatchPort, publishingBatchPort } from './publishing.batch-port.js';
import type { PublishingDeps } from './publishing.deps.js';
import { type PublishTargetsReadPort, publishTargetsReadPort } from './publishing.read.js';
import { publishingRepository } from './publishing.repository.js';
import { registerPublishingRoutes } from './publishing.routes.js';
import { ReconcileService } from './reconcile.service.js';
import { SlotsService } from './slots.service.js';
import { targetsRepository } from './targets.repository.js';
import { UrlReconciliationService } from './url-reconciliation.service.js';

export type PublishingPorts = PublishingDeps & {
  registry: ProviderRegistry;
  /** channels' and profiles' reads and the token-problem state change (channels owns those tables) */
  channels: ChannelsReadPort;
  tokenProblems: ChannelsTokenProblemsPort;
  profiles: ProfilesReadPort;
  brands: BrandsReadPort;
  media: MediaReadPort;
  outbound: GuardedHttpClient;
  /** whether a target's worker job is still waiting or running (the reconciliation sweep) */
  queue: QueueInspector;
};

export type { MediaInputT } from './media-access.js';
/** the process log line of each publish outcome (the root subscribes it to the outbox) */
export { publishOutcomeLog } from './outcome-log.js';
export type {
  BatchJobToCreate,
  BatchPublishTarget,
  PublishingBatchPort,
} from './publishing.batch-port.js';
export type { PublishTargetsReadPort } from './publishing.read.js';
export type { StoredMedia } from './publishing.tables.js';

/** What other areas (batches, automations, provider webhooks, comments, analytics) use of publishing. */
export interface PublishingRead {
  channels: ChannelGateway;
  slots: SlotsService;
  /** published targets (comments and analytics sync their posts) */
  targets: PublishTargetsReadPort;
  /** the batches' port: batch items as plans, their jobs and targets */
  batches: PublishingBatchPort;
}

/**
 * What automations may do with plans: create one (a write: publishing validates the plan and writes its
 * job, targets and worker jobs). The root hands over `PublishingModule.plans`.
 */
export type PublishingPlansPort = Pick<PlansService, 'create'>;

/**
 * What provider webhooks do with a platform's notice about a post: find its targets (a read) and act on a
 * video the platform reports live (a write: a poll queued, or the public URL recorded). The root hands
 * over `PublishingModule.notices`.
 */
export type PublishingNoticesPort = Pick<ProviderNotices, 'targetsOfPost' | 'videoLive'>;

export interface PublishingModule extends AreaModule<PublishingRead> {
  channels: ChannelGateway;
  plans: PlansService;
  jobsService: PublishJobsService;
  approvals: PublishApprovalsService;
  engine: PublishEngine;
  firstComment: FirstCommentStep;
  reconcile: ReconcileService;
  urls: UrlReconciliationService;
  slots: SlotsService;
  notices: ProviderNotices;
  /** subscribed by the root to the media library's reference checks */
  mediaReferenceCheck: MediaReferenceCheck;
  /** subscribed by the root to channel disconnects */
  onChannelDisconnect: typeof disconnectHook;
}

export function createPublishingModule(ports: PublishingPorts): PublishingModule {
  const env = ports.config.env;
  const channels = new ChannelGateway({
    db: ports.database.db,
    registry: ports.registry,
    channels: ports.channels,
    tokenProblems: ports.tokenProblems,
    profiles: ports.profiles,
  });
  const media = new MediaAccess(ports.media, ports.outbound);
  const leaseMs = env.SERVICE_PUBLISH_LEASE_SECONDS * 1000;
  const limiter = new PublishLimiter(
    () => ports.counters.shared,
    () => ports.clock.now().getTime(),
    leaseMs,
  );
  const engine = new PublishEngine(ports, channels, media, limiter, {
    maxAttempts: env.SERVICE_PUBLISH_MAX_ATTEMPTS,
    retryBaseMs: env.SERVICE_PUBLISH_RETRY_BASE_MS,
    retryMaxMs: env.SERVICE_PUBLISH_RETRY_MAX_MS,
    leaseMs,
    pollMaxMs: env.SERVICE_PUBLISH_POLL_MAX_SECONDS * 1000,
    callsAtOnce: env.SERVICE_PUBLISH_WORKER_CONCURRENCY,
  });
  const firstComment = new FirstCommentStep(ports, channels, env.SERVICE_PUBLISH_RETRY_BASE_MS);
  const reconcile = new ReconcileService(ports, channels, engine.outcomes, ports.queue, {
    leaseMs,
    graceMs: env.SERVICE_PUBLISH_RECONCILE_GRACE_SECONDS * 1000,
    maxAttempts: env.SERVICE_PUBLISH_MAX_ATTEMPTS,
  });
  const plans = new PlansService(ports, channels, media, ports.brands);
  const slots = new SlotsService(ports, channels, ports.brands);
  const notices = new ProviderNotices(ports);
  const module: PublishingModule = {
    channels,
    plans,
    jobsService: new PublishJobsService(ports),
    approvals: new PublishApprovalsService(ports),
    engine,
    firstComment,
    reconcile,
    urls: new UrlReconciliationService(ports, channels),
    slots,
    notices,
    read: {
      channels,
      slots,
      targets: publishTargetsReadPort,
      batches: publishingBatchPort(ports, channels, media, (tx, e, o) => plans.persistJobs(tx, e, o)),
    },
    jobs: publishJobDefinitions(ports, { engine, firstComment, reconcile }),
    mediaReferenceCheck,
    onChannelDisconnect: disconnectHook,
    routes: (app: FastifyInstance) => registerPublishingRoutes(app, ports, module),
  };
  return module;
}

/** A media item is in use while a publish target that has not finished references it. */
async function mediaReferenceCheck(db: Executor, organizationId: string, mediaLibraryItemId: string) {
  const rows = await targetsRepository.openUsingMedia(db, organizationId, mediaLibraryItemId);
  return rows.map((r) => ({ kind: 'publish_target', id: r.id }));
}

/**
 * A disconnected channel's targets: waiting ones are cancelled (they can never publish), a retry
 * waiting for the platform needs a reconnect, and one in flight needs attention (its outcome is unknown),
 * unless its worker noted the platform's answer: that one is published, and its outcome is written as usual.
 */
async function disconnectHook(tx: Executor, organizationId: string, channelAccountId: string, now: Date) {
  const move = async (event: TargetEvent, among: readonly string[], reason: string) => {
    return targetsRepository.moveChannelTargets(tx, organizationId, channelAccountId, { event, among, reason, at: now });
  };
  // never scheduled, or waiting for its time: it can never publish
  const cancelled = await move('cancel', [...DRAFT_STATES, TRANSITIONS.schedule.to], 'channel disconnected');
  // due now (a retry waiting for the platform): a reconnect lets it go on
  const reconnect = await move('needs_reconnect', [TRANSITIONS.enqueue.to], 'channel disconnected while waiting to publish');
  const attention = await move('needs_attention', IN_FLIGHT_STATES, 'channel disconnected while publishing');
  for (const jobId of new Set([...cancelled, ...reconnect, ...attention].map((r) => r.job_id)))
    await publishingRepository.refreshJobStatus(tx, jobId, now);
  return {
    cancelledPostTargetCount: cancelled.length,
    needsReconnectPostTargetCount: reconnect.length,
    needsAttentionPostTargetCount: attention.length,
  };
}
