/**
 * The worker: registers every job handler (a definition's `concurrency` jobs at once), writes a heartbeat row that readiness reads, and on stop
 * lets jobs in flight finish (pg-boss graceful stop) before removing its heartbeat.
 */
import os from 'node:os';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { AnyDb } from '../db/database.js';
import { newId } from '../ids.js';
import { type JobObserver, secondsSince } from '../metrics/metrics.js';
import { FetchLoop } from './fetch-loop.js';
import type { JobDefinition, JobQueue, WorkerLoop } from './job-queue.js';

export interface WorkerHandle {
  workerId: string;
  stop(timeoutMs: number): Promise<void>;
}

export async function startWorker(opts: {
  db: AnyDb;
  queue: JobQueue;
  jobs: JobDefinition<any>[];
  heartbeatSeconds: number;
  logger: Logger;
  /** counts each job run by queue and outcome, with its duration */
  metrics?: JobObserver;
}): Promise<WorkerHandle> {
  const { db, queue, logger } = opts;
  const jobs = opts.metrics ? opts.jobs.map((def) => observeJob(def, opts.metrics!)) : opts.jobs;
  const workerId = newId('wrk');
  const startedAt = new Date();
  const beat = async () => {
    const now = new Date();
    await db
      .insertInto('worker_heartbeats')
      .values({ worker_id: workerId, hostname: os.hostname(), pid: process.pid, started_at: startedAt, beat_at: now })
      .onConflict((oc) => oc.column('worker_id').doUpdateSet({ beat_at: now }))
      .execute();
  };
  await beat();
  const timer = setInterval(() => {
    beat().catch((err) => logger.warn({ err: (err as Error).message }, 'worker heartbeat failed'));
  }, opts.heartbeatSeconds * 1000);
  timer.unref();

  const loops: (FetchLoop | WorkerLoop)[] = [];
  for (const def of jobs) {
    await queue.ensureQueue(def);
    if (def.loop) {
      const loop = def.loop(logger);
      loop.start();
      loops.push(loop);
    }
    const concurrency = Math.max(1, Math.floor(def.concurrency ?? 1));
    if (concurrency > 1) {
      // several at once: our own fetch loop (pg-boss's loop waits its interval after every fetch)
      const loop = new FetchLoop(queue.boss, def, concurrency, logger);
      loop.start();
      loops.push(loop);
    } else {
      await queue.boss.work(
        def.name,
        { batchSize: 1, pollingIntervalSeconds: def.pollingIntervalSeconds ?? 1 },
        async (batch: PgBoss.Job<any>[]) => {
          for (const job of batch) await def.handler(job.data, job);
        },
      );
    }
    if (def.cron) await queue.boss.schedule(def.name, def.cron, {}, { tz: 'UTC' });
  }
  // a periodic job that is no longer defined (its work moved, e.g. into the maintenance prune) would
  // otherwise stay scheduled in pg-boss and queue jobs no worker takes
  const defined = new Set(jobs.map((j) => j.name));
  for (const scheduled of await queue.boss.getSchedules()) if (!defined.has(scheduled.name)) await queue.boss.unschedule(scheduled.name);
  logger.info({ workerId, jobs: jobs.map((j) => j.name) }, 'worker started');

  return {
    workerId,
    async stop(timeoutMs) {
      clearInterval(timer);
      await Promise.all(loops.map((l) => l.stop(timeoutMs)));
      await queue.stop({ graceful: true, timeoutMs });
      await db
        .deleteFrom('worker_heartbeats')
        .where('worker_id', '=', workerId)
        .execute()
        .catch(() => undefined);
      logger.info({ workerId }, 'worker stopped');
    },
  };
}

/** A definition whose handler reports each run (completed, or failed when it throws) to the observer. */
function observeJob<T extends object>(def: JobDefinition<T>, observer: JobObserver): JobDefinition<T> {
  return {
    ...def,
    async handler(data, job) {
      const start = process.hrtime.bigint();
      try {
        await def.handler(data, job);
      } catch (err) {
        observer.job(def.name, 'failed', secondsSince(start));
        throw err;
      }
      observer.job(def.name, 'completed', secondsSince(start));
    },
  };
}
