/**
 * The outcome events of a batch of published targets in a fixed number of statements: what
 * `recordTargetOutcome` writes for each target (its outcome event, then its job's publish_job.completed
 * when this change completed the job), for all of them at once, from the rows the outcome statement
 * returned. One by one this was about ten round trips per target inside the outcome transaction.
 */

import type { DomainEvent, EventOutbox } from '../../platform/events/outbox.js';
import type { Executor } from '../database.js';
import { publishEngineRepository } from './publish-engine.repository.js';
import { COMPLETED, TARGET_EVENTS } from './publish-events.js';
import { deriveJobStatus } from './publish-states.js';
import { toJob, toTarget } from './publishing.mapper.js';
import type { JobRow, TargetRow } from './publishing.repository.js';

/**
 * `outcomes`: targets changed in this transaction (their rows as the change left them), in the order
 * their events should take; `jobUpdated`: the change set the job's status, which the hot path does only
 * when the target is its job's only one (under that row lock), so the job's targets are that one row.
 */
export async function recordTargetOutcomes(
  events: EventOutbox,
  tx: Executor,
  outcomes: Array<{ target: TargetRow; jobUpdated: boolean }>,
): Promise<void> {
  if (outcomes.length === 0) return;
  const completing = outcomes.filter((o) => o.jobUpdated).map((o) => o.target);
  const orgIds = [...new Set(completing.map((t) => t.organization_id))];
  const jobIds = [...new Set(completing.map((t) => t.job_id))];
  const jobs = new Map<string, JobRow>();
  const alreadyCompleted = new Set<string>();
  if (jobIds.length > 0) {
    const rows = await publishEngineRepository.jobsWithCompletionMark(tx, orgIds, jobIds);
    for (const { completed_before, ...job } of rows) {
      jobs.set(job.id, job);
      if (completed_before) alreadyCompleted.add(job.id);
    }
  }
  const list: DomainEvent[] = [];
  for (const { target: t, jobUpdated } of outcomes) {
    const type = TARGET_EVENTS[t.state as keyof typeof TARGET_EVENTS];
    if (type) list.push({ organizationId: t.organization_id, type, data: toTarget(t), sequenceKey: t.job_id });
    if (!jobUpdated || alreadyCompleted.has(t.job_id)) continue;
    const job = jobs.get(t.job_id);
    if (!job || job.organization_id !== t.organization_id || !COMPLETED.has(deriveJobStatus([t.state]))) continue;
    alreadyCompleted.add(t.job_id);
    list.push({ organizationId: t.organization_id, type: 'publish_job.completed', data: toJob(job, [t]), sequenceKey: t.job_id });
  }
  await events.recordMany(tx, list);
}
