/**
 * The worker side of publishing: the queues' job definitions. The worker runs
 * SERVICE_PUBLISH_WORKER_CONCURRENCY publish jobs at once per process (one pg-boss fetch loop each,
 * SKIP LOCKED, so worker processes share the due jobs).
 */
import type { AppDeps } from '../../app-deps.js';
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
import type { ReconcileService } from './reconcile.service.js';

/** First comments are rare next to publishes; a few at once keep a burst of them moving. */
const FIRST_COMMENT_CONCURRENCY = 4;

export function publishJobDefinitions(
  deps: AppDeps,
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
      concurrency: deps.config.env.SERVICE_PUBLISH_WORKER_CONCURRENCY,
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
