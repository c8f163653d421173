/**
 * Publish plans: preview (validation only) and creation of publish jobs from AgentPublishRequest —
 * profile expansion, media resolution, validation, idempotent create and, in the same transaction as
 * the rows, the worker jobs of every scheduled or queued target.
 */

import { createHash } from 'node:crypto';
import { AppError } from '../../platform/errors.js';
import type { EventAudience } from '../../platform/events/event-types.js';
import { newId } from '../../platform/ids.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Executor } from '../database.js';
import type { ChannelGateway } from './channel-gateway.js';
import { type MediaAccess, type MediaInputT, toStored } from './media-access.js';
import { type PlanIssue, type PlanTargetInput, type PlanValidation, validatePlan } from './plan-validation.js';
import { assertMayPublish, type Publisher } from './publish-approvals.service.js';
import { recordJobCreated, recordJobsCreated } from './publish-events.js';
import { profileLateness } from './publish-lateness.js';
import { ensurePublishQueues, sendTargetJob, sendTargetJobs } from './publish-queue.js';
import { deriveJobStatus } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { toJob } from './publishing.mapper.js';
import { type NewJob, type NewTarget, publishingRepository } from './publishing.repository.js';
import type { AgentPlanT, AgentPublishRequestT, PublishJobT } from './publishing.schemas.js';

/** A scheduleAt this far in the past is refused; closer than that it is simply due now. */
const PAST_TOLERANCE_MS = 60_000;

interface PlanToResolve {
  brandId: string;
  text: string;
  productId?: string;
  profileId?: string;
  media: MediaInputT[];
  mediaLibraryItemIds: string[];
  targets: PlanTargetInput[];
  scheduleAt?: string;
}

/** The one reading of a plan, for the preview and the create alike (omitted lists are empty). */
function planToResolve(plan: AgentPlanT): PlanToResolve {
  return {
    brandId: plan.brandId,
    text: plan.text,
    productId: plan.productId,
    profileId: plan.profileId,
    media: (plan.media ?? []) as MediaInputT[],
    mediaLibraryItemIds: plan.mediaLibraryItemIds ?? [],
    targets: plan.targets ?? [],
    scheduleAt: plan.scheduleAt,
  };
}

interface ResolvedPlan {
  validation: PlanValidation;
  profileId: string | null;
  media: ReturnType<typeof toStored>[];
}

export type CreateAnswer =
  | { kind: 'dry_run'; body: Record<string, unknown> }
  | { kind: 'created'; job: PublishJobT; warnings: PlanIssue[] }
  | { kind: 'replayed'; job: PublishJobT };

export class PlansService {
  constructor(
    private readonly deps: PublishingDeps,
    private readonly channels: ChannelGateway,
    private readonly media: MediaAccess,
    private readonly brands: BrandsReadPort,
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  /** Either plan shape (a PublicPublishPlanInput is an AgentPublishPlan), resolved exactly as create does. */
  async preview(organizationId: string, plan: AgentPlanT) {
    const r = await this.resolve(this.db, organizationId, planToResolve(plan));
    return { mode: 'preview' as const, ...r.validation };
  }

  /** The plan media resolution of the publish plan preview, for callers that validate many plans (batches). */
  resolveMedia(db: Executor, organizationId: string, inputs: MediaInputT[], libraryIds: string[]) {
    return this.media.resolve(db, organizationId, inputs, libraryIds);
  }

  private async resolve(db: Executor, organizationId: string, plan: PlanToResolve): Promise<ResolvedPlan> {
    const resolutionIssues: PlanIssue[] = [];
    let targets = plan.targets;
    let profileId: string | null = null;
    if (plan.profileId) {
      const expansion = await this.channels.expandProfile(db, organizationId, plan.profileId);
      if (!expansion) {
        resolutionIssues.push({
          targetIndex: null,
          channelAccountId: null,
          path: ['profileId'],
          code: 'profile_not_found',
          severity: 'blocking',
          message: `No publishing profile ${plan.profileId} in the organization.`,
        });
      } else {
        profileId = expansion.profileId;
        if (expansion.brandId !== plan.brandId) {
          resolutionIssues.push({
            targetIndex: null,
            channelAccountId: null,
            path: ['profileId'],
            code: 'profile_brand_mismatch',
            severity: 'blocking',
            message: `Profile ${plan.profileId} belongs to brand ${expansion.brandId}.`,
          });
        }
        if (targets.length === 0) targets = expansion.targets;
      }
    }
    const brand = await this.brands.brand(db, organizationId, plan.brandId);
    const productExists = plan.productId ? await this.brands.hasProduct(db, organizationId, plan.brandId, plan.productId) : false;
    const media = await this.media.resolve(db, organizationId, plan.media, plan.mediaLibraryItemIds);
    resolutionIssues.push(...media.issues);
    if (plan.scheduleAt && Date.parse(plan.scheduleAt) < this.deps.clock.now().getTime() - PAST_TOLERANCE_MS) {
      resolutionIssues.push({
        targetIndex: null,
        channelAccountId: null,
        path: ['scheduleAt'],
        code: 'schedule_at_in_past',
        severity: 'blocking',
        message: `scheduleAt ${plan.scheduleAt} is in the past.`,
      });
    }
    const channels = await this.channels.facts(
      db,
      organizationId,
      targets.map((t) => t.channelAccountId),
    );
    const validation = validatePlan({
      brandId: plan.brandId,
      brandExists: !!brand,
      productId: plan.productId ?? null,
      productExists,
      text: plan.text,
      media: media.media,
      targets,
      channels,
      resolutionIssues,
    });
    return { validation, profileId, media: media.media.map(toStored) };
  }

  /**
   * `publisher`: the route's caller; a member's create with enqueue or scheduleAt is refused unless the
   * organization lets members publish directly (dry runs write nothing and pass). Omitted for the
   * service's own callers (automations an admin configured).
   */
  async create(organizationId: string, req: AgentPublishRequestT, publisher?: Publisher): Promise<CreateAnswer> {
    const dryRun = req.dryRun ?? true;
    const enqueue = req.enqueue ?? false;
    if (!dryRun && (enqueue || req.plan.scheduleAt))
      await assertMayPublish(this.db, publisher, req.plan.scheduleAt ? 'schedule a post' : 'queue a post');
    if (!dryRun && !this.deps.config.gateOpen('SERVICE_PUBLISH_JOB_WRITE_ENABLED')) throw new AppError('publish_job_write_disabled');
    if (!dryRun && enqueue && !this.deps.config.gateOpen('SERVICE_PUBLISH_ENQUEUE_ENABLED')) throw new AppError('publish_enqueue_disabled');
    // a scheduleAt schedules (and queues the worker jobs for that time): the schedule gate applies as it
    // does on POST /v1/publish/jobs/{id}/schedule; dry runs write nothing and pass every write gate
    if (!dryRun && req.plan.scheduleAt && !this.deps.config.gateOpen('SERVICE_PUBLISH_SCHEDULE_WRITE_ENABLED'))
      throw new AppError('publish_schedule_write_disabled');
    const requestHash = createHash('sha256').update(JSON.stringify(req)).digest('hex');
    if (!dryRun && req.idempotencyKey) {
      const replay = await this.replay(organizationId, req.idempotencyKey, requestHash);
      if (replay) return replay;
    }
    const plan = req.plan;
    const resolved = await this.resolve(this.db, organizationId, planToResolve(plan));
    const v = resolved.validation;
    const maxLatenessMinutes = await this.latenessLimit(organizationId, plan.maxLatenessMinutes, resolved.profileId);
    if (!v.valid) {
      throw new AppError('publish_plan_validation_failed', {
        message: `The plan has ${v.issues.filter((i) => i.severity === 'blocking').length} blocking issue(s): ${v.issues.find((i) => i.severity === 'blocking')?.message}`,
        details: { issues: v.issues },
      });
    }
    const now = this.deps.clock.now();
    const scheduledAt = plan.scheduleAt ? new Date(plan.scheduleAt) : null;
    const runAfter = req.runAfter ? new Date(req.runAfter) : null;
    // scheduleAt schedules (publishes at that time); enqueue without a time queues now; neither is a draft
    const state = scheduledAt ? 'scheduled' : enqueue ? 'queued' : 'draft';
    const due = state === 'draft' ? null : new Date(Math.max(scheduledAt?.getTime() ?? now.getTime(), runAfter?.getTime() ?? 0));
    const summary = {
      jobCount: 1,
      targetCount: v.targets.length,
      initialState: state,
      scheduledAt: scheduledAt?.toISOString() ?? null,
      firstAttemptAt: due?.toISOString() ?? null,
      maxLatenessMinutes,
      targets: v.targets.map((t) => ({
        channelAccountId: t.channelAccountId,
        platform: t.platform,
        state,
      })),
    };
    if (dryRun)
      return {
        kind: 'dry_run',
        body: { mode: 'dry_run', preview: { mode: 'preview', ...v }, summary },
      };

    const jobId = newId('job');
    const targets: NewTarget[] = v.targets.map((t, i) => {
      const { firstComment, ...settings } = t.settings as Record<string, unknown> & {
        firstComment?: { content: string; delayMs?: number };
      };
      return {
        id: newId('tgt'),
        channelAccountId: t.channelAccountId,
        platform: t.platform,
        position: i,
        text: t.text,
        settings,
        state,
        scheduledAt,
        nextAttemptAt: due,
        firstComment: firstComment
          ? {
              content: firstComment.content,
              delayMs: firstComment.delayMs ?? 0,
            }
          : null,
      };
    });
    await ensurePublishQueues(this.deps.jobs);
    try {
      await this.db.transaction().execute(async (tx) => {
        await this.persistJob(
          tx,
          {
            id: jobId,
            organizationId,
            brandId: plan.brandId,
            productId: plan.productId ?? null,
            profileId: resolved.profileId,
            title: req.title ?? null,
            text: plan.text,
            media: resolved.media,
            status: deriveJobStatus(targets.map((t) => t.state)),
            idempotencyKey: req.idempotencyKey ?? null,
            requestHash,
            scheduledAt,
            runAfter,
            maxLatenessMinutes,
            at: now,
          },
          targets,
        );
      });
    } catch (err) {
      // a concurrent create with the same key won the unique index: answer its job
      if (req.idempotencyKey && /duplicate key|unique/i.test(String((err as Error).message))) {
        const replay = await this.replay(organizationId, req.idempotencyKey, requestHash);
        if (replay) return replay;
      }
      throw err;
    }
    const job = await publishingRepository.getJob(this.db, organizationId, jobId);
    return {
      kind: 'created',
      job: toJob(job!, await publishingRepository.targetsOf(this.db, organizationId, [jobId])),
      warnings: v.issues.filter((i) => i.severity === 'warning'),
    };
  }

  /**
   * Writes a job and its targets inside the caller's transaction: rows, the publish_job.created event
   * and the worker job of every scheduled or queued target (due at its nextAttemptAt). Publish batches
   * create their jobs through this too. The caller runs ensurePublishQueues before its transaction.
   */
  async persistJob(tx: Executor, job: NewJob, targets: NewTarget[]): Promise<void> {
    await publishingRepository.insertJob(tx, job, targets);
    await recordJobCreated(this.deps.events, tx, job.organizationId, job.id);
    for (const t of targets) {
      if (t.state !== 'scheduled' && t.state !== 'queued') continue;
      await sendTargetJob(
        this.deps.jobs,
        tx,
        {
          targetId: t.id,
          organizationId: job.organizationId,
          version: 1,
          step: 'publish',
          platform: t.platform,
          channelAccountId: t.channelAccountId,
        },
        t.nextAttemptAt,
      );
    }
  }

  /**
   * Many jobs at once inside the caller's transaction (publish batches): rows and worker jobs in bulk
   * statements. `announce: true` records one publish_job.created per job for every subscriber; an audience
   * records them for that audience only (a batch's jobs: its publish_batch.committed lists them for
   * everyone, and only endpoints that opted in get one event per job).
   */
  async persistJobs(
    tx: Executor,
    entries: Array<{ job: NewJob; targets: NewTarget[] }>,
    opts: { announce: boolean | EventAudience },
  ): Promise<void> {
    await publishingRepository.insertJobs(tx, entries);
    if (opts.announce === true) for (const { job } of entries) await recordJobCreated(this.deps.events, tx, job.organizationId, job.id);
    else if (opts.announce !== false && entries.length > 0)
      await recordJobsCreated(
        this.deps.events,
        tx,
        entries[0]!.job.organizationId,
        entries.map((e) => e.job.id),
        opts.announce,
      );
    await sendTargetJobs(
      this.deps.jobs,
      tx,
      entries.flatMap(({ job, targets }) =>
        targets
          .filter((t) => t.state === 'scheduled' || t.state === 'queued')
          .map((t) => ({
            data: {
              targetId: t.id,
              organizationId: job.organizationId,
              version: 1,
              step: 'publish' as const,
              platform: t.platform,
              channelAccountId: t.channelAccountId,
            },
            startAfter: t.nextAttemptAt,
          })),
      ),
    );
  }

  /** The plan's limit; omitted: the profile's scheduleSettings.maxLatenessMinutes, else none. */
  private async latenessLimit(organizationId: string, given: number | null | undefined, profileId: string | null): Promise<number | null> {
    if (given !== undefined) return given;
    if (!profileId) return null;
    return profileLateness(await this.channels.scheduleSettings(this.db, organizationId, profileId));
  }

  private async replay(organizationId: string, key: string, requestHash: string): Promise<CreateAnswer | null> {
    const existing = await publishingRepository.findByIdempotencyKey(this.db, organizationId, key);
    if (!existing) return null;
    if (existing.request_hash && existing.request_hash !== requestHash) {
      throw new AppError('publish_idempotency_key_reused', {
        message: `idempotencyKey ${key} was used for job ${existing.id} with a different request.`,
        details: { publishJobId: existing.id },
      });
    }
    return {
      kind: 'replayed',
      job: toJob(existing, await publishingRepository.targetsOf(this.db, organizationId, [existing.id])),
    };
  }
}
