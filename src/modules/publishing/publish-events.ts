/**
 * Webhook events of publishing, recorded in the transaction of the change (the event outbox):
 * publish_job.created / scheduled / cancelled / approval_requested / approved / rejected,
 * publish_target.published / failed / needs_attention / missed, publish_job.completed.
 * Every event of one job shares the job id as sequence key, so receivers can order them.
 */

import type { EventAudience } from '../../platform/events/event-types.js';
import type { EventOutbox } from '../../platform/events/outbox.js';
import type { Executor } from '../database.js';
import { publishEngineRepository } from './publish-engine.repository.js';
import { deriveJobStatus } from './publish-states.js';
import { toJob, toTarget } from './publishing.mapper.js';
import { publishingRepository, type TargetRow } from './publishing.repository.js';

/** The job statuses after which nothing more happens to a job: its publish_job.completed is recorded. */
export const COMPLETED = new Set(['published', 'partially_published', 'failed', 'missed']);
/** The event a target's outcome records, by the state it reached. */
export const TARGET_EVENTS = {
  published: 'publish_target.published',
  failed: 'publish_target.failed',
  needs_attention: 'publish_target.needs_attention',
  missed: 'publish_target.missed',
} as const;

export async function recordJobCreated(events: EventOutbox, tx: Executor, organizationId: string, jobId: string): Promise<void> {
  const job = await publishingRepository.getJob(tx, organizationId, jobId);
  if (!job) return;
  const targets = await publishingRepository.targetsOf(tx, organizationId, [jobId]);
  await events.record(tx, { organizationId, type: 'publish_job.created', data: toJob(job, targets), sequenceKey: jobId });
}

/**
 * publish_job.created of many jobs in a fixed number of statements (two reads, one outbox write), for an
 * audience: a batch commit's jobs reach only the endpoints that opted in to them.
 */
export async function recordJobsCreated(
  events: EventOutbox,
  tx: Executor,
  organizationId: string,
  jobIds: string[],
  audience: EventAudience,
): Promise<void> {
  const jobs = await publishingRepository.getJobs(tx, organizationId, jobIds);
  const targets = new Map<string, TargetRow[]>();
  for (const t of await publishingRepository.targetsOf(tx, organizationId, jobIds))
    targets.set(t.job_id, [...(targets.get(t.job_id) ?? []), t]);
  await events.recordMany(
    tx,
    jobs.map((job) => ({
      organizationId,
      type: 'publish_job.created' as const,
      data: toJob(job, targets.get(job.id) ?? []),
      sequenceKey: job.id,
      audience,
    })),
  );
}

/**
 * publish_job.scheduled (a client scheduled or rescheduled it), publish_job.cancelled, or an approval's
 * publish_job.approval_requested / approved / rejected, with the job as it now is.
 */
export async function recordJobChange(
  events: EventOutbox,
  tx: Executor,
  organizationId: string,
  jobId: string,
  type:
    | 'publish_job.scheduled'
    | 'publish_job.cancelled'
    | 'publish_job.approval_requested'
    | 'publish_job.approved'
    | 'publish_job.rejected',
): Promise<void> {
  const job = await publishingRepository.getJob(tx, organizationId, jobId);
  if (!job) return;
  const targets = await publishingRepository.targetsOf(tx, organizationId, [jobId]);
  await events.record(tx, { organizationId, type, data: toJob(job, targets), sequenceKey: jobId });
}

/** The target's outcome event (if its state has one), then the job's completion if this change completed it. */
export async function recordTargetOutcome(
  events: EventOutbox,
  tx: Executor,
  organizationId: string,
  targetId: string,
  jobUpdated = true,
): Promise<void> {
  const t = await publishEngineRepository.target(tx, organizationId, targetId);
  if (!t) return;
  const type = TARGET_EVENTS[t.state as keyof typeof TARGET_EVENTS];
  if (type) await events.record(tx, { organizationId: t.organization_id, type, data: toTarget(t), sequenceKey: t.job_id });
  if (jobUpdated) await recordJobCompletion(events, tx, t.organization_id, t.job_id);
}

/** publish_job.completed once per job, when no target is left to do (call under the job row lock). */
export async function recordJobCompletion(events: EventOutbox, tx: Executor, organizationId: string, jobId: string): Promise<void> {
  const targets = await publishingRepository.targetsOf(tx, organizationId, [jobId]);
  if (!COMPLETED.has(deriveJobStatus(targets.map((t) => t.state)))) return;
  if (await publishEngineRepository.jobCompletionRecorded(tx, organizationId, jobId)) return;
  const job = await publishingRepository.getJob(tx, organizationId, jobId);
  if (!job) return;
  await events.record(tx, { organizationId, type: 'publish_job.completed', data: toJob(job, targets), sequenceKey: jobId });
}
