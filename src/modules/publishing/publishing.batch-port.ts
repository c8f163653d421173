/**
 * What the batches area uses of publishing (PublishingBatchPort, handed to batches by the root): a batch
 * item checked as a plan is (its media resolved, plan validation), the platforms' first comment
 * support, the channels' posts already placed, the batch's publish jobs and targets created in the
 * caller's transaction (with the batch rows: all or nothing), and the current state of its targets.
 * Every method that reads or writes takes the caller's executor.
 */
import type { EventAudience } from '../../platform/events/event-types.js';
import type { Platform } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import type { ChannelGateway } from './channel-gateway.js';
import { type MediaAccess, type MediaInputT, toStored } from './media-access.js';
import { type ChannelFacts, type PlanTargetInput, type PlanValidation, validatePlan } from './plan-validation.js';
import { PLATFORM_RULES } from './platform-rules.js';
import { profileLateness } from './publish-lateness.js';
import { ensurePublishQueues } from './publish-queue.js';
import { deriveJobStatus, OPEN_STATES, type TargetState } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { type NewJob, type NewTarget, publishingRepository } from './publishing.repository.js';
import type { StoredMedia } from './publishing.tables.js';

/** One batch item as a plan of one brand and product. */
interface BatchItemToCheck {
  brandId: string;
  productId: string;
  text: string;
  media: MediaInputT[];
  mediaLibraryItemIds: string[];
  /** the targets with their settings (a first comment in settings.firstComment) */
  targets: PlanTargetInput[];
  /** the facts of the targets' channels (channelFacts) */
  channels: Map<string, ChannelFacts>;
}

/** A post already placed on a channel (scheduled, in flight or published). */
interface PlacedPost {
  channelAccountId: string;
  platform: string;
  text: string;
  productId: string | null;
  /** when it published, else when it is scheduled */
  at: Date;
}

/** A publish job of a batch item: its targets are scheduled at their times. */
export interface BatchJobToCreate {
  id: string;
  productId: string;
  title: string | null;
  text: string;
  media: StoredMedia[];
  targets: Array<{
    id: string;
    channelAccountId: string;
    platform: string;
    position: number;
    settings: Record<string, unknown>;
    firstComment: { content: string; delayMs: number } | null;
    scheduledAt: Date;
  }>;
}

/** A publish target as batches show it. */
export interface BatchPublishTarget {
  id: string;
  jobId: string;
  platform: string;
  channelAccountId: string;
  state: string;
  /** not finished (publishing's OPEN_STATES: a draft, waiting for the worker or in flight) */
  open: boolean;
  stateReason: string | null;
  scheduledAt: Date | null;
  providerPostId: string | null;
  firstCommentState: string | null;
  updatedAt: Date;
}

export interface PublishingBatchPort {
  /** The organization's channels of the ids with the facts plan validation needs. */
  channelFacts(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, ChannelFacts>>;
  /** The item's media resolved and validated with its targets exactly as a plan's; the media as a job stores it. */
  checkItem(db: Executor, organizationId: string, item: BatchItemToCheck): Promise<{ validation: PlanValidation; media: StoredMedia[] }>;
  /** Whether the platform posts a first comment, and its display name. */
  firstCommentSupport(platform: string): { supported: boolean; displayName: string };
  /** The channels' posts placed with their time in [from, to]. */
  placedPosts(db: Executor, organizationId: string, channelIds: string[], from: Date, to: Date): Promise<PlacedPost[]>;
  /** The publish queues exist (before a transaction sends jobs to them). */
  ensureQueues(): Promise<void>;
  /** The jobs, their targets and their worker jobs, in the caller's transaction; no job.created events (the batch announces them). */
  createScheduledJobs(tx: Executor, organizationId: string, brandId: string, at: Date, jobs: BatchJobToCreate[]): Promise<void>;
  /** The organization's publish targets of the ids, ordered by id (ids it has not are left out). */
  targets(db: Executor, organizationId: string, ids: string[]): Promise<BatchPublishTarget[]>;
}

export function publishingBatchPort(
  deps: Pick<PublishingDeps, 'jobs'>,
  channels: ChannelGateway,
  media: MediaAccess,
  persistJobs: (
    tx: Executor,
    entries: Array<{ job: NewJob; targets: NewTarget[] }>,
    opts: { announce: boolean | EventAudience },
  ) => Promise<void>,
): PublishingBatchPort {
  return {
    channelFacts: (db, organizationId, ids) => channels.facts(db, organizationId, ids),

    async checkItem(db, organizationId, item) {
      const resolved = await media.resolve(db, organizationId, item.media, item.mediaLibraryItemIds);
      const validation = validatePlan({
        brandId: item.brandId,
        brandExists: true,
        productId: item.productId,
        productExists: true,
        text: item.text,
        media: resolved.media,
        targets: item.targets,
        channels: item.channels,
        resolutionIssues: resolved.issues,
      });
      return { validation, media: resolved.media.map(toStored) };
    },

    firstCommentSupport(platform) {
      const cap = PLATFORM_RULES[platform as Platform]?.capability;
      return { supported: !!cap?.supportsComments && cap.plugNames.includes('firstComment'), displayName: cap?.displayName ?? platform };
    },

    async placedPosts(db, organizationId, channelIds, from, to) {
      const rows = await publishingRepository.postsOfChannels(db, organizationId, channelIds, from, to);
      return rows.map((r) => ({
        channelAccountId: r.channel_account_id,
        platform: r.platform,
        text: r.text,
        productId: r.product_id,
        at: new Date(r.at),
      }));
    },

    ensureQueues: () => ensurePublishQueues(deps.jobs),

    async createScheduledJobs(tx, organizationId, brandId, at, jobs) {
      // the lateness limit of the brand's default profile (whose batch policy placed the posts)
      const defaultProfile = await channels.defaultProfileId(tx, organizationId, brandId);
      const maxLatenessMinutes = defaultProfile
        ? profileLateness(await channels.scheduleSettings(tx, organizationId, defaultProfile))
        : null;
      const entries = jobs.map((j) => {
        const targets: NewTarget[] = j.targets.map((t) => ({
          id: t.id,
          channelAccountId: t.channelAccountId,
          platform: t.platform,
          position: t.position,
          text: j.text,
          settings: t.settings,
          state: 'scheduled',
          scheduledAt: t.scheduledAt,
          nextAttemptAt: t.scheduledAt,
          firstComment: t.firstComment,
        }));
        const job: NewJob = {
          id: j.id,
          organizationId,
          brandId,
          productId: j.productId,
          profileId: null,
          title: j.title,
          text: j.text,
          media: j.media,
          status: deriveJobStatus(targets.map((t) => t.state)),
          idempotencyKey: null,
          requestHash: null,
          scheduledAt: new Date(Math.min(...targets.map((t) => t.scheduledAt!.getTime()))),
          runAfter: null,
          maxLatenessMinutes,
          at,
        };
        return { job, targets };
      });
      // publish_batch.committed announces the jobs; endpoints that opted in also get one publish_job.created each
      await persistJobs(tx, entries, { announce: 'batch_job_events' });
    },

    async targets(db, organizationId, ids) {
      const rows = await publishingRepository.targetsByIds(db, organizationId, [...new Set(ids)].sort());
      return rows.map((r) => ({
        id: r.id,
        jobId: r.job_id,
        platform: r.platform,
        channelAccountId: r.channel_account_id,
        state: r.state,
        open: OPEN_STATES.includes(r.state as TargetState),
        stateReason: r.state_reason,
        scheduledAt: r.scheduled_at,
        providerPostId: r.provider_post_id,
        firstCommentState: r.first_comment_state,
        updatedAt: r.updated_at,
      }));
    },
  };
}
