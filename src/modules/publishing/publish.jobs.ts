/**
 * The worker side of publishing: the queues' job definitions. One fetch loop per process (SKIP
 * LOCKED, so worker processes share the due jobs) fetches publish jobs SERVICE_PUBLISH_LEAD_SECONDS
 * before they fall due, in batches, and starts each at its due time. Every due job the process holds is
 * started at once (up to MAX_HELD): the engine lets SERVICE_PUBLISH_WORKER_CONCURRENCY of them claim and
 * call the platform at once, the others wait for a call permit, which costs nothing. A job slot never
 * limits the calls: a job whose outcome is held during a burst (the engine's write-behind) keeps its
 * slot, and with slots for only a few times the permits the held outcomes would stop the calls.
 */
import { defineJob, type JobDefinition } from '../../platform/queue/job-queue.js';
import type { FirstCommentStep } from './first-comment.js';
import type { PublishEngine } from './publish-engine.js';
import {
  type CommentJobData,
  FIRST_COMMENT_QUEUE,
  PUBLISH_QUEUE,
  QUEUE_DEFS,
  RECONCILE_QUEUE,
  type TargetJobData,
} from './publish-queue.js';
import type { PublishingDeps } from './publishing.deps.js';
import type { ReconcileService } from './reconcile.service.js';

/** most publish jobs one process holds fetched (in progress, or waiting for their due time) */
const MAX_HELD = 20_000;

/** First comments are rare next to publishes; a few at once keep a burst of them moving. */
const FIRST_COMMENT_CONCURRENCY = 4;

export function publishJobDefinitions(
  deps: PublishingDeps,
  parts: {
    engine: PublishEngine;
    firstComment: FirstCommentStep;
    reconcile: ReconcileService;
  },
): JobDefinition<any>[] {
  return [
    defineJob<TargetJobData>({
      name: PUBLISH_QUEUE,
      queue: { ...QUEUE_DEFS[PUBLISH_QUEUE] },
      concurrency: MAX_HELD,
      // a held job counts as active since its fetch: the lead stays well inside the lease the
      // reconciliation sweep allows an active job
      leadMs: Math.min(deps.config.env.SERVICE_PUBLISH_LEAD_SECONDS * 1000, (deps.config.env.SERVICE_PUBLISH_LEASE_SECONDS * 1000) / 2),
      maxHeld: MAX_HELD,
      pollingIntervalSeconds: 0.5,
      handler: async (data) => {
        await parts.engine.handle(data);
      },
    }),
    defineJob<CommentJobData>({
      name: FIRST_COMMENT_QUEUE,
      queue: { ...QUEUE_DEFS[FIRST_COMMENT_QUEUE] },
      concurrency: FIRST_COMMENT_CONCURRENCY,
      pollingIntervalSeconds: 0.5,
      handler: async (data) => {
        await parts.firstComment.handle(data);
      },
    }),
    defineJob<Record<string, never>>({
      name: RECONCILE_QUEUE,
      cron: '* * * * *',
      queue: { ...QUEUE_DEFS[RECONCILE_QUEUE] },
      handler: async () => {
        await parts.reconcile.run();
      },
    }),
  ];
}
