/**
 * Publish job reads and the client's state changes: enqueue, (re)schedule, cancel. Each change is one
 * transaction: the job row is locked, targets move only where the state table allows (conditional
 * UPDATE with a version bump, so a worker about to publish either claimed the target first — and the
 * target is reported as not changed — or finds its job stale and skips), and new worker jobs are sent
 * in the same transaction.
 */
import { decodeCursor, decodeTimeCursor, page } from '../../http/pagination.js';
import { encodeTimeKey } from '../../platform/db/keyset.js';
import { retryOnConflict } from '../../platform/db/retry.js';
import { AppError, type ErrorCode } from '../../platform/errors.js';
import { firstCommentRepository } from './first-comment.repository.js';
import { assertMayPublish, type Publisher } from './publish-approvals.service.js';
import { recordJobChange } from './publish-events.js';
import { ensurePublishQueues, sendTargetJob } from './publish-queue.js';
import { type TargetEvent, TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { toJob } from './publishing.mapper.js';
import { publishingRepository } from './publishing.repository.js';
import type { JobListQueryT, PublishJobT } from './publishing.schemas.js';

const REFUSALS: Record<'enqueue' | 'schedule' | 'cancel', ErrorCode> = {
  enqueue: 'publish_job_not_enqueueable',
  schedule: 'publish_job_not_schedulable',
  cancel: 'publish_job_not_cancellable',
};

export class PublishJobsService {
  constructor(private readonly deps: PublishingDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  async list(organizationId: string, q: JobListQueryT) {
    const limit = q.limit ?? 50;
    const filters = {
      brandId: q.brandId,
      status: q.status,
      from: q.from,
      to: q.to,
    };
    if (q.from && q.to && Date.parse(q.from) >= Date.parse(q.to)) {
      throw new AppError('invalid_public_publish_job_query', {
        message: 'from must be before to.',
        fields: [{ path: ['from'], source: 'query' }],
      });
    }
    // a time window is listed by the time the job is for (its index gives the page without sorting the
    // window); otherwise by id
    const code = 'invalid_public_publish_job_query';
    const byTime = Boolean(q.from || q.to);
    const rows = await publishingRepository.listJobs(this.db, organizationId, {
      brandId: q.brandId,
      status: q.status,
      from: q.from ? new Date(q.from) : undefined,
      to: q.to ? new Date(q.to) : undefined,
      order: byTime
        ? { by: 'time', after: decodeTimeCursor(q.cursor, filters, code) }
        : { by: 'id', before: decodeCursor(q.cursor, filters, code) },
      limit,
    });
    const keyOf = byTime
      ? (r: (typeof rows)[number]) => encodeTimeKey(r.scheduled_at ?? r.created_at, r.id)
      : (r: (typeof rows)[number]) => r.id;
    const { data, nextCursor } = page(rows, limit, keyOf, filters);
    const targets = await publishingRepository.targetsOf(
      this.db,
      organizationId,
      data.map((j) => j.id),
    );
    return {
      data: data.map((j) =>
        toJob(
          j,
          targets.filter((t) => t.job_id === j.id),
        ),
      ),
      nextCursor,
    };
  }

  async get(organizationId: string, jobId: string): Promise<PublishJobT> {
    const job = await publishingRepository.getJob(this.db, organizationId, jobId);
    if (!job)
      throw new AppError('public_publish_job_not_found', {
        message: `No publish job ${jobId} in the principal organization.`,
      });
    return toJob(job, await publishingRepository.targetsOf(this.db, organizationId, [jobId]));
  }

  async enqueue(organizationId: string, jobId: string, publisher?: Publisher): Promise<PublishJobT> {
    if (!this.deps.config.gateOpen('SERVICE_PUBLISH_ENQUEUE_ENABLED')) throw new AppError('publish_enqueue_disabled');
    await assertMayPublish(this.db, publisher, 'queue a post');
    const now = this.deps.clock.now();
    return this.change(organizationId, jobId, 'enqueue', { nextAttemptAt: now, stateReason: null }, now);
  }

  async schedule(organizationId: string, jobId: string, scheduleAt: string, publisher?: Publisher): Promise<PublishJobT> {
    if (!this.deps.config.gateOpen('SERVICE_PUBLISH_SCHEDULE_WRITE_ENABLED')) throw new AppError('publish_schedule_write_disabled');
    await assertMayPublish(this.db, publisher, 'schedule a post');
    const now = this.deps.clock.now();
    const at = new Date(scheduleAt);
    if (!(at.getTime() > now.getTime())) {
      throw new AppError('invalid_public_publish_schedule_request', {
        message: `scheduleAt must be in the future (now is ${now.toISOString()}).`,
        fields: [{ path: ['scheduleAt'], source: 'body' }],
      });
    }
    return this.change(organizationId, jobId, 'schedule', { scheduledAt: at, nextAttemptAt: at, stateReason: null }, now);
  }

  cancel(organizationId: string, jobId: string, reason: string | undefined): Promise<PublishJobT> {
    if (!this.deps.config.gateOpen('SERVICE_PUBLISH_CANCEL_WRITE_ENABLED')) throw new AppError('publish_cancel_write_disabled');
    const now = this.deps.clock.now();
    return this.change(
      organizationId,
      jobId,
      'cancel',
      { nextAttemptAt: null, stateReason: reason ?? 'cancelled by the client' },
      now,
      reason ?? null,
    );
  }

  private async change(
    organizationId: string,
    jobId: string,
    event: Extract<TargetEvent, 'enqueue' | 'schedule' | 'cancel'>,
    set: {
      scheduledAt?: Date;
      nextAttemptAt: Date | null;
      stateReason: string | null;
    },
    now: Date,
    cancelReason: string | null = null,
  ): Promise<PublishJobT> {
    await ensurePublishQueues(this.deps.jobs);
    // the worker's claim and outcome lock a target before its job, this change the job first: a
    // deadlock between them aborts one transaction, and this one then runs again
    await retryOnConflict(() =>
      this.db.transaction().execute(async (tx) => {
        const job = await publishingRepository.getJob(tx, organizationId, jobId, {
          forUpdate: true,
        });
        if (!job)
          throw new AppError('public_publish_job_not_found', {
            message: `No publish job ${jobId} in the principal organization.`,
          });
        // keep the first attempt no earlier than the job's runAfter
        const nextAttemptAt = set.nextAttemptAt && job.run_after && job.run_after > set.nextAttemptAt ? job.run_after : set.nextAttemptAt;
        const changed = await publishingRepository.applyEvent(tx, organizationId, jobId, event, {
          ...set,
          nextAttemptAt,
          // what lateness is measured from: the new time, or none once cancelled
          dueAt: nextAttemptAt,
          at: now,
        });
        if (changed.length === 0) {
          const states = (await publishingRepository.targetsOf(tx, organizationId, [jobId])).map((t) => `${t.id}: ${t.state}`);
          throw new AppError(REFUSALS[event], {
            message: `No target can ${event === 'schedule' ? 'be rescheduled' : event === 'cancel' ? 'be cancelled' : 'be queued'} (allowed from ${TRANSITIONS[event].from.join(', ')}); targets: ${states.join('; ') || 'none'}.`,
            details: { allowedFrom: TRANSITIONS[event].from },
          });
        }
        if (event !== 'cancel') {
          for (const t of changed)
            await sendTargetJob(
              this.deps.jobs,
              tx,
              {
                targetId: t.id,
                organizationId,
                version: t.version,
                step: 'publish',
                platform: t.platform,
                channelAccountId: t.channel_account_id,
              },
              nextAttemptAt,
            );
        } else {
          await firstCommentRepository.cancelWaiting(tx, organizationId, jobId);
        }
        await publishingRepository.setJobFields(tx, jobId, {
          at: now,
          ...(event === 'schedule' ? { scheduledAt: set.scheduledAt } : {}),
          ...(event === 'cancel' ? { cancelReason } : {}),
        });
        await publishingRepository.refreshJobStatus(tx, jobId, now);
        // webhooks: the job's schedule and cancel events, in the change's transaction
        if (event === 'schedule') await recordJobChange(this.deps.events, tx, organizationId, jobId, 'publish_job.scheduled');
        if (event === 'cancel') await recordJobChange(this.deps.events, tx, organizationId, jobId, 'publish_job.cancelled');
      }),
    );
    return this.get(organizationId, jobId);
  }
}
