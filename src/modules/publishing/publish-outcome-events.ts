/**
 * The outcome events of a batch of targets in a fixed number of statements: what `recordTargetOutcome`
 * writes for each target (its outcome event, then its job's publish_job.completed when this change
 * completed the job), for all of them at once. One by one this was about ten round trips per target
 * inside the outcome transaction, the largest share of a publish under a burst.
 */
import type { Executor } from '../../platform/db/database.js';
import type { DomainEvent, EventOutbox } from '../../platform/events/outbox.js';
import { deriveJobStatus } from './publish-states.js';
import { toJob, toTarget } from './publishing.mappers.js';
import type { JobRow, TargetRow } from './publishing.repository.js';

const COMPLETED = new Set(['published', 'partially_published', 'failed']);
const TARGET_EVENTS = {
  published: 'publish_target.published',
  failed: 'publish_target.failed',
  needs_attention: 'publish_target.needs_attention',
} as const;

/**
 * `outcomes`: targets changed in this transaction, in the order their events should take; `jobUpdated`:
 * the change set the job's status (its completion is checked then, under that row lock).
 */
export async function recordTargetOutcomes(
  events: EventOutbox,
  tx: Executor,
  outcomes: Array<{ targetId: string; jobUpdated: boolean }>,
): Promise<void> {
  if (outcomes.length === 0) return;
  const targets = (await tx
    .selectFrom('publish_targets')
    .selectAll()
    .where(
      'id',
      'in',
      outcomes.map((o) => o.targetId),
    )
    .execute()) as TargetRow[];
  const byId = new Map(targets.map((t) => [t.id, t]));
  const completing = outcomes.flatMap((o) => {
    const t = byId.get(o.targetId);
    return o.jobUpdated && t ? [t] : [];
  });
  const orgIds = [...new Set(completing.map((t) => t.organization_id))];
  const jobIds = [...new Set(completing.map((t) => t.job_id))];
  let jobTargets = new Map<string, TargetRow[]>();
  let jobs = new Map<string, JobRow>();
  let alreadyCompleted = new Set<string>();
  if (jobIds.length > 0) {
    const [allTargets, jobRows, done] = [
      (await tx
        .selectFrom('publish_targets')
        .selectAll()
        .where('organization_id', 'in', orgIds)
        .where('job_id', 'in', jobIds)
        .orderBy('job_id')
        .orderBy('position')
        .execute()) as TargetRow[],
      (await tx
        .selectFrom('publish_jobs')
        .selectAll()
        .where('organization_id', 'in', orgIds)
        .where('id', 'in', jobIds)
        .execute()) as JobRow[],
      await tx
        .selectFrom('events')
        .select('sequence_key')
        .where('organization_id', 'in', orgIds)
        .where('sequence_key', 'in', jobIds)
        .where('type', '=', 'publish_job.completed')
        .execute(),
    ];
    jobTargets = new Map();
    for (const t of allTargets) {
      const list = jobTargets.get(t.job_id) ?? [];
      list.push(t);
      jobTargets.set(t.job_id, list);
    }
    jobs = new Map(jobRows.map((j) => [j.id, j]));
    alreadyCompleted = new Set(done.map((d) => d.sequence_key as string));
  }
  const list: DomainEvent[] = [];
  for (const o of outcomes) {
    const t = byId.get(o.targetId);
    if (!t) continue;
    const type = TARGET_EVENTS[t.state as keyof typeof TARGET_EVENTS];
    if (type) list.push({ organizationId: t.organization_id, type, data: toTarget(t), sequenceKey: t.job_id });
    if (!o.jobUpdated || alreadyCompleted.has(t.job_id)) continue;
    const job = jobs.get(t.job_id);
    const ofJob = jobTargets.get(t.job_id) ?? [];
    if (!job || job.organization_id !== t.organization_id || !COMPLETED.has(deriveJobStatus(ofJob.map((x) => x.state)))) continue;
    alreadyCompleted.add(t.job_id);
    list.push({ organizationId: t.organization_id, type: 'publish_job.completed', data: toJob(job, ofJob), sequenceKey: t.job_id });
  }
  await events.recordMany(tx, list);
}
