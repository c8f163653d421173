/**
 * The worker side of publishing. pg-boss hands a worker one job at a time and then waits for its
 * polling interval, which alone would cap a worker at a couple of publishes a second; so the publish
 * handler drains: with its own job in hand it fetches further due jobs of the queue (SKIP LOCKED, so
 * worker processes share them) and runs up to SERVICE_PUBLISH_WORKER_CONCURRENCY at once, completing
 * each, until the queue is empty or the drain's time budget ends.
 */
import type PgBoss from 'pg-boss';
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

const DRAIN_BUDGET_MS = 15_000;

export class PublishDrain {
  constructor(
    private readonly deps: AppDeps,
    private readonly engine: PublishEngine,
    private readonly concurrency: number,
  ) {}

  async run(first: TargetJobData): Promise<void> {
    const boss = this.deps.jobs.boss;
    const deadline = Date.now() + DRAIN_BUDGET_MS;
    const running = new Set<Promise<void>>();
    const done: string[] = [];
    const failed: string[] = [];
    const track = (p: Promise<void>) => {
      running.add(p);
      p.finally(() => running.delete(p));
    };
    let firstError: unknown = null;
    track(
      this.engine.handle(first).then(
        () => undefined,
        (err) => {
          firstError = err;
        },
      ),
    );
    // completions are written in batches, off the path that starts new work
    let flushing: Promise<void> = Promise.resolve();
    const flush = () => {
      if (done.length === 0 && failed.length === 0) return;
      const ok = done.splice(0);
      const bad = failed.splice(0);
      flushing = flushing.then(async () => {
        if (ok.length > 0) await boss.complete(PUBLISH_QUEUE, ok).catch(() => undefined);
        if (bad.length > 0) await boss.fail(PUBLISH_QUEUE, bad).catch(() => undefined);
      });
    };
    const timer = setInterval(flush, 50);
    try {
      let empty = false;
      while (Date.now() < deadline) {
        const free = this.concurrency - running.size;
        if (free > 0 && !empty) {
          let jobs: PgBoss.Job<TargetJobData>[] = [];
          try {
            jobs = await boss.fetch<TargetJobData>(PUBLISH_QUEUE, { batchSize: free });
          } catch {
            break; // stopping
          }
          for (const job of jobs) {
            track(
              this.engine.handle(job.data).then(
                () => void done.push(job.id),
                () => void failed.push(job.id),
              ),
            );
          }
          if (jobs.length > 0) continue;
          empty = true;
        }
        if (running.size === 0) break;
        await Promise.race(running);
        // room again: look for more work
        empty = false;
      }
      await Promise.all(running);
    } finally {
      clearInterval(timer);
      flush();
      await flushing;
    }
    if (firstError) throw firstError;
  }
}

export function publishJobDefinitions(
  _deps: AppDeps,
  parts: {
    drain: PublishDrain;
    firstComment: FirstCommentStep;
    reconcile: ReconcileService;
  },
): JobDefinition<any>[] {
  return [
    defineJob<TargetJobData>({
      name: PUBLISH_QUEUE,
      queue: { ...QUEUE_DEFS[PUBLISH_QUEUE] },
      pollingIntervalSeconds: 0.5,
      handler: (data) => parts.drain.run(data),
    }),
    defineJob<CommentJobData>({
      name: FIRST_COMMENT_QUEUE,
      queue: { ...QUEUE_DEFS[FIRST_COMMENT_QUEUE] },
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
