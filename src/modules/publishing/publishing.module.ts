/**
 * Wires the publishing engine from the application's dependencies, once per deps (the API and the
 * worker of one process share it), and registers the engine's hooks in other areas: the media
 * reference check (a pending publish target keeps its media) and the channel disconnect hook.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import type { Executor } from '../../platform/db/database.js';
import type { JobDefinition } from '../../platform/queue/job-queue.js';
import { registerDisconnectHook } from '../channels/disconnect-hooks.js';
import { registerMediaReferenceCheck } from '../media/media-references.js';
import { ChannelGateway } from './channel-gateway.js';
import { FirstCommentStep } from './first-comment.js';
import { JobsService } from './jobs.service.js';
import { MediaAccess } from './media-access.js';
import { PlansService } from './plans.service.js';
import { ProviderNotices } from './provider-notices.js';
import { publishJobDefinitions } from './publish.jobs.js';
import { PublishEngine } from './publish-engine.js';
import { PublishLimiter } from './publish-policies.js';
import { DRAFT_STATES, fromStates, IN_FLIGHT_STATES, OPEN_STATES, type TargetEvent, TRANSITIONS } from './publish-states.js';
import { publishingRepository } from './publishing.repository.js';
import { ReconcileService } from './reconcile.service.js';
import { SlotsService } from './slots.service.js';
import { UrlReconciliationService } from './url-reconciliation.service.js';

export interface PublishingModule {
  channels: ChannelGateway;
  plans: PlansService;
  jobs: JobsService;
  engine: PublishEngine;
  firstComment: FirstCommentStep;
  reconcile: ReconcileService;
  urls: UrlReconciliationService;
  slots: SlotsService;
  /** platform notices about published posts (provider webhooks) */
  notices: ProviderNotices;
  jobDefinitions: JobDefinition<any>[];
}

const modules = new WeakMap<AppDeps, PublishingModule>();

export function publishingModule(deps: AppDeps): PublishingModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  registerHooks();
  const env = deps.config.env;
  const channels = new ChannelGateway(deps);
  const media = new MediaAccess(deps);
  const leaseMs = env.SERVICE_PUBLISH_LEASE_SECONDS * 1000;
  const limiter = new PublishLimiter(
    () => deps.counters.shared,
    () => deps.clock.now().getTime(),
    leaseMs,
  );
  const engine = new PublishEngine(deps, channels, media, limiter, {
    maxAttempts: env.SERVICE_PUBLISH_MAX_ATTEMPTS,
    retryBaseMs: env.SERVICE_PUBLISH_RETRY_BASE_MS,
    retryMaxMs: env.SERVICE_PUBLISH_RETRY_MAX_MS,
    leaseMs,
    pollMaxMs: env.SERVICE_PUBLISH_POLL_MAX_SECONDS * 1000,
  });
  const firstComment = new FirstCommentStep(deps, channels, env.SERVICE_PUBLISH_RETRY_BASE_MS);
  const reconcile = new ReconcileService(deps, channels, engine.outcomes, {
    leaseMs,
    graceMs: env.SERVICE_PUBLISH_RECONCILE_GRACE_SECONDS * 1000,
  });
  const module: PublishingModule = {
    channels,
    plans: new PlansService(deps, channels, media),
    jobs: new JobsService(deps),
    engine,
    firstComment,
    reconcile,
    urls: new UrlReconciliationService(deps, channels),
    slots: new SlotsService(deps, channels),
    notices: new ProviderNotices(deps),
    jobDefinitions: publishJobDefinitions(deps, {
      engine,
      firstComment,
      reconcile,
    }),
  };
  modules.set(deps, module);
  return module;
}

/** The worker's publishing jobs (runtime.ts jobDefinitions). */
export function publishingJobDefinitions(deps: AppDeps): JobDefinition<any>[] {
  return publishingModule(deps).jobDefinitions;
}

let hooksRegistered = false;

function registerHooks() {
  if (hooksRegistered) return;
  hooksRegistered = true;
  registerMediaReferenceCheck(async (db, organizationId, mediaLibraryItemId) => {
    const rows = await db
      .selectFrom('publish_targets as t')
      .innerJoin('publish_jobs as j', 'j.id', 't.job_id')
      .select('t.id')
      .where('j.organization_id', '=', organizationId)
      .where('t.state', 'in', [...OPEN_STATES])
      .where(sql<boolean>`j.media @> ${JSON.stringify([{ mediaLibraryItemId }])}::jsonb`)
      .limit(20)
      .execute();
    return rows.map((r) => ({ kind: 'publish_target', id: r.id }));
  });
  registerDisconnectHook(disconnectHook);
}

/**
 * A disconnected channel's targets: waiting ones are cancelled (they can never publish), a retry
 * waiting for the platform needs a reconnect, and one in flight needs attention (its outcome is unknown).
 */
export async function disconnectHook(tx: Executor, organizationId: string, channelAccountId: string, now: Date) {
  const move = async (event: TargetEvent, among: readonly string[], reason: string) => {
    const rows = await tx
      .updateTable('publish_targets')
      .set((eb) => ({
        state: TRANSITIONS[event].to,
        version: eb('version', '+', 1),
        state_reason: reason,
        next_attempt_at: null,
        updated_at: now,
      }))
      .where('organization_id', '=', organizationId)
      .where('channel_account_id', '=', channelAccountId)
      .where('state', 'in', fromStates(event, among))
      .returning(['id', 'job_id'])
      .execute();
    return rows;
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
