/**
 * pg-boss queues of the publishing engine. A worker job only names a target and the target version it
 * was sent for; the target row decides what happens, so stale jobs (after a reschedule or cancel) are
 * skipped and a duplicate job can never publish twice.
 */

import { txSql } from '../../platform/db/database.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import type { Executor } from '../database.js';

export const PUBLISH_QUEUE = 'publish.target';
export const FIRST_COMMENT_QUEUE = 'publish.first-comment';
export const RECONCILE_QUEUE = 'publish.reconcile';

export interface TargetJobData {
  targetId: string;
  organizationId: string;
  version: number;
  /** publish: first call to the platform; poll: check a post the platform is still processing */
  step: 'publish' | 'poll';
  /** hints that let the worker take its concurrency slot before reading the target */
  platform?: string;
  channelAccountId?: string;
}

export interface CommentJobData {
  targetId: string;
  organizationId: string;
}

/** Publish jobs are never retried by pg-boss itself: the engine decides retries from the outcome. */
const PUBLISH_QUEUE_OPTIONS = {
  retryLimit: 0,
  expireInSeconds: 900,
} as const;

export async function sendTargetJob(jobs: JobQueue, tx: Executor, data: TargetJobData, startAfter: Date | null): Promise<void> {
  await jobs.send(PUBLISH_QUEUE, data, {
    tx,
    ...(startAfter ? { startAfter } : {}),
    retryLimit: 0,
    expireInSeconds: PUBLISH_QUEUE_OPTIONS.expireInSeconds,
  });
}

/** Many target jobs in one statement per 1,000 (pg-boss insert), in the caller's transaction. */
export async function sendTargetJobs(
  jobs: JobQueue,
  tx: Executor,
  entries: Array<{ data: TargetJobData; startAfter: Date | null }>,
): Promise<void> {
  for (let i = 0; i < entries.length; i += 1000) {
    const rows = entries.slice(i, i + 1000).map((e) => ({
      name: PUBLISH_QUEUE,
      data: e.data,
      retryLimit: 0,
      expireInSeconds: PUBLISH_QUEUE_OPTIONS.expireInSeconds,
      ...(e.startAfter ? { startAfter: e.startAfter.toISOString() } : {}),
    }));
    await jobs.boss.insert(rows, { db: txSql(tx) } as never);
  }
}

export async function sendCommentJob(jobs: JobQueue, tx: Executor, data: CommentJobData, startAfter: Date | null): Promise<void> {
  await jobs.send(FIRST_COMMENT_QUEUE, data, {
    tx,
    ...(startAfter ? { startAfter } : {}),
    retryLimit: 0,
  });
}

/** Queue options shared by senders (ensureQueue) and the worker's definitions. */
export const QUEUE_DEFS = {
  [PUBLISH_QUEUE]: {
    retryLimit: 0,
    expireInSeconds: PUBLISH_QUEUE_OPTIONS.expireInSeconds,
  },
  [FIRST_COMMENT_QUEUE]: { retryLimit: 0, expireInSeconds: 300 },
  [RECONCILE_QUEUE]: {
    policy: 'singleton',
    retryLimit: 0,
    expireInSeconds: 300,
  },
} as const;

/**
 * pg-boss 10 refuses sends to a queue that does not exist; queues are created outside any transaction
 * (on PGlite a query outside the open transaction would wait for it forever).
 */
export async function ensurePublishQueues(jobs: JobQueue): Promise<void> {
  for (const [name, queue] of Object.entries(QUEUE_DEFS))
    await jobs.ensureQueue({
      name,
      queue: { ...queue },
      handler: async () => undefined,
    });
}
