/**
 * Approvals of publish jobs (the policy table: publishing.drafts.manage submits, publishing.results.manage
 * decides) and the organization's publishing setting that lets members publish directly.
 *
 * A member creates drafts and submits one (optionally with the time wanted): its targets move to
 * pending_approval. An admin (or an API key / OAuth token with publish:write) approves it, and its
 * targets are scheduled (at the approver's time, else the submitter's while it is still ahead) or queued
 * now, or rejects it with a reason, and they are drafts again. Submitting a job again after its approval
 * (while it still waits) takes it back for approval. Every move is a conditional UPDATE over the
 * transition table (publish-states.ts), so a wrong state is refused as a whole: 409
 * publish_job_invalid_transition.
 */
import { retryOnConflict } from '../../platform/db/retry.js';
import { AppError } from '../../platform/errors.js';
import type { Executor } from '../database.js';
import { recordJobChange } from './publish-events.js';
import { ensurePublishQueues, sendTargetJob } from './publish-queue.js';
import { type TargetEvent, TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { toJob } from './publishing.mapper.js';
import { publishingRepository, type TargetRow } from './publishing.repository.js';
import type { PublishJobT } from './publishing.schemas.js';
import type { ApprovalRecord } from './publishing.tables.js';
import type { PublishingSettingsT } from './publishing-approvals.schemas.js';

/** Who acts on a job, as the route established it. */
export interface Publisher {
  organizationId: string;
  /** a user id (dashboard session) or the API key / OAuth token subject */
  by: string;
  /** publishes without approval by role or credential: admins, owners, API keys and OAuth tokens with publish:write */
  publishes: boolean;
}

const notFound = (jobId: string) =>
  new AppError('public_publish_job_not_found', { message: `No publish job ${jobId} in the principal organization.` });

/**
 * Refuses a member's publishing (a create with enqueue or scheduleAt, enqueue, schedule) unless the
 * organization lets members publish directly.
 */
export async function assertMayPublish(db: Executor, publisher: Publisher | undefined, what: string): Promise<void> {
  if (!publisher || publisher.publishes) return;
  if (await publishingRepository.membersPublishDirectly(db, publisher.organizationId)) return;
  throw new AppError('permission_denied', {
    message: `A member cannot ${what} directly in this organization: create a draft and submit it for approval (POST /v1/publish/jobs/{publishJobId}/submit), or ask an admin to allow members to publish directly (PATCH /v1/publish/settings).`,
  });
}

export class PublishApprovalsService {
  constructor(private readonly deps: PublishingDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  private future(value: string | undefined, code: 'invalid_public_publish_submit_request' | 'invalid_public_publish_approve_request') {
    if (value === undefined) return null;
    const now = this.deps.clock.now();
    const at = new Date(value);
    if (!(at.getTime() > now.getTime()))
      throw new AppError(code, {
        message: `scheduleAt must be in the future (now is ${now.toISOString()}).`,
        fields: [{ path: ['scheduleAt'], source: 'body' }],
      });
    return at;
  }

  async submit(publisher: Publisher, jobId: string, body: { scheduleAt?: string; note?: string }): Promise<PublishJobT> {
    const wanted = this.future(body.scheduleAt, 'invalid_public_publish_submit_request');
    const now = this.deps.clock.now();
    await this.inJob(publisher.organizationId, jobId, async (tx) => {
      await this.move(tx, publisher.organizationId, jobId, 'submit', {
        scheduledAt: wanted,
        nextAttemptAt: null,
        dueAt: null,
        stateReason: 'waiting for approval',
        at: now,
      });
      const approval: ApprovalRecord = {
        state: 'pending',
        requestedBy: publisher.by,
        requestedAt: now.toISOString(),
        note: body.note ?? null,
        scheduleAt: wanted?.toISOString() ?? null,
        decidedBy: null,
        decidedAt: null,
        reason: null,
      };
      await publishingRepository.setJobFields(tx, jobId, { approval, scheduledAt: wanted, at: now });
      await publishingRepository.refreshJobStatus(tx, jobId, now);
      await recordJobChange(this.deps.events, tx, publisher.organizationId, jobId, 'publish_job.approval_requested');
    });
    return this.get(publisher.organizationId, jobId);
  }

  async approve(publisher: Publisher, jobId: string, body: { scheduleAt?: string }): Promise<PublishJobT> {
    const chosen = this.future(body.scheduleAt, 'invalid_public_publish_approve_request');
    await ensurePublishQueues(this.deps.jobs);
    await this.inJob(publisher.organizationId, jobId, async (tx, job) => {
      const now = this.deps.clock.now();
      const asked = job.approval?.scheduleAt ? new Date(job.approval.scheduleAt) : null;
      // the approver's time, else the submitter's while it is still ahead, else now
      const at = chosen ?? (asked && asked > now ? asked : null);
      if (at && !this.deps.config.gateOpen('SERVICE_PUBLISH_SCHEDULE_WRITE_ENABLED')) throw new AppError('publish_schedule_write_disabled');
      if (!at && !this.deps.config.gateOpen('SERVICE_PUBLISH_ENQUEUE_ENABLED')) throw new AppError('publish_enqueue_disabled');
      const due = at ?? now;
      const first = job.run_after && job.run_after > due ? job.run_after : due;
      const changed = await this.move(tx, publisher.organizationId, jobId, at ? 'approve_scheduled' : 'approve_queued', {
        scheduledAt: at,
        nextAttemptAt: first,
        dueAt: first,
        stateReason: null,
        at: now,
      });
      for (const t of changed)
        await sendTargetJob(
          this.deps.jobs,
          tx,
          {
            targetId: t.id,
            organizationId: publisher.organizationId,
            version: t.version,
            step: 'publish',
            platform: t.platform,
            channelAccountId: t.channel_account_id,
          },
          first,
        );
      const approval = this.decided(job.approval, publisher, now, { state: 'approved', reason: null });
      await publishingRepository.setJobFields(tx, jobId, { approval, scheduledAt: at, at: now });
      await publishingRepository.refreshJobStatus(tx, jobId, now);
      await recordJobChange(this.deps.events, tx, publisher.organizationId, jobId, 'publish_job.approved');
    });
    return this.get(publisher.organizationId, jobId);
  }

  async reject(publisher: Publisher, jobId: string, reason: string): Promise<PublishJobT> {
    await this.inJob(publisher.organizationId, jobId, async (tx, job) => {
      const now = this.deps.clock.now();
      await this.move(tx, publisher.organizationId, jobId, 'reject', {
        nextAttemptAt: null,
        dueAt: null,
        stateReason: `rejected: ${reason}`.slice(0, 500),
        at: now,
      });
      const approval = this.decided(job.approval, publisher, now, { state: 'rejected', reason });
      await publishingRepository.setJobFields(tx, jobId, { approval, at: now });
      await publishingRepository.refreshJobStatus(tx, jobId, now);
      await recordJobChange(this.deps.events, tx, publisher.organizationId, jobId, 'publish_job.rejected');
    });
    return this.get(publisher.organizationId, jobId);
  }

  async settings(organizationId: string): Promise<PublishingSettingsT> {
    const row = await publishingRepository.publishingSettings(this.db, organizationId);
    return {
      organizationId,
      membersPublishDirectly: row?.members_publish_directly ?? false,
      updatedBy: row?.updated_by ?? null,
      updatedAt: row ? new Date(row.updated_at).toISOString() : null,
    };
  }

  async saveSettings(organizationId: string, by: string, body: { membersPublishDirectly: boolean }): Promise<PublishingSettingsT> {
    await publishingRepository.savePublishingSettings(this.db, organizationId, {
      membersPublishDirectly: body.membersPublishDirectly,
      by,
      at: this.deps.clock.now(),
    });
    return this.settings(organizationId);
  }

  private decided(
    previous: ApprovalRecord | null,
    publisher: Publisher,
    now: Date,
    outcome: Pick<ApprovalRecord, 'state' | 'reason'>,
  ): ApprovalRecord {
    return {
      requestedBy: previous?.requestedBy ?? publisher.by,
      requestedAt: previous?.requestedAt ?? now.toISOString(),
      note: previous?.note ?? null,
      scheduleAt: previous?.scheduleAt ?? null,
      ...outcome,
      decidedBy: publisher.by,
      decidedAt: now.toISOString(),
    };
  }

  /** The change in one transaction under the job row lock (taken first, as the client's other changes do). */
  private async inJob(
    organizationId: string,
    jobId: string,
    body: (tx: Executor, job: NonNullable<Awaited<ReturnType<typeof publishingRepository.getJob>>>) => Promise<void>,
  ): Promise<void> {
    await retryOnConflict(() =>
      this.db.transaction().execute(async (tx) => {
        const job = await publishingRepository.getJob(tx, organizationId, jobId, { forUpdate: true });
        if (!job) throw notFound(jobId);
        await body(tx, job);
      }),
    );
  }

  /** Moves every target the table allows; none: 409 publish_job_invalid_transition with the targets' states. */
  private async move(
    tx: Executor,
    organizationId: string,
    jobId: string,
    event: Extract<TargetEvent, 'submit' | 'approve_scheduled' | 'approve_queued' | 'reject'>,
    set: Parameters<typeof publishingRepository.applyEvent>[4],
  ): Promise<TargetRow[]> {
    const changed = await publishingRepository.applyEvent(tx, organizationId, jobId, event, set);
    if (changed.length > 0) return changed;
    const states = (await publishingRepository.targetsOf(tx, organizationId, [jobId])).map((t) => `${t.id}: ${t.state}`);
    const verb = event === 'submit' ? 'be submitted for approval' : event === 'reject' ? 'be rejected' : 'be approved';
    throw new AppError('publish_job_invalid_transition', {
      message: `No target of job ${jobId} can ${verb} (allowed from ${TRANSITIONS[event].from.join(', ')}); targets: ${states.join('; ') || 'none'}.`,
      details: { allowedFrom: TRANSITIONS[event].from },
    });
  }

  private async get(organizationId: string, jobId: string): Promise<PublishJobT> {
    const job = await publishingRepository.getJob(this.db, organizationId, jobId);
    if (!job) throw notFound(jobId);
    return toJob(job, await publishingRepository.targetsOf(this.db, organizationId, [jobId]));
  }
}
