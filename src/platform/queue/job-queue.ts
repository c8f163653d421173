/**
 * pg-boss on the service's own database (PGlite or PostgreSQL). Areas define jobs with defineJob();
 * the worker process registers a handler for each. `send` takes an optional transaction so a job is
 * enqueued atomically with the row change that needs it.
 */
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { type AnyExecutor, type DatabaseHandle, txSql } from '../db/database.js';

/** Work a worker runs continuously beside its queues (see JobDefinition.loop). */
export interface WorkerLoop {
  readonly name: string;
  start(): void;
  /** stops taking work and waits (at most timeoutMs) for the work in flight */
  stop(timeoutMs: number): Promise<void>;
}

export interface JobDefinition<T extends object = Record<string, unknown>> {
  name: string;
  /** pg-boss queue options: retries, backoff, expiry, policy */
  queue?: Omit<PgBoss.Queue, 'name'>;
  /** how many jobs of this queue one worker runs at once */
  concurrency?: number;
  pollingIntervalSeconds?: number;
  /**
   * fetch jobs due within this many ms ahead and start each at its startAfter (never earlier), so the
   * queue's own work is done before the due time; only with concurrency > 1 (our fetch loop)
   */
  leadMs?: number;
  /** most fetched jobs one process holds (running, waiting for a slot or for their due time); default concurrency */
  maxHeld?: number;
  /** cron (UTC) on which the worker schedules this job, if periodic */
  cron?: string;
  /**
   * a loop the worker runs beside this queue, started and stopped with it (work taken from a table of its
   * own rather than as one queue job each: the webhooks' delivery claims)
   */
  loop?: (logger: Logger) => WorkerLoop;
  handler(data: T, job: PgBoss.Job<T>): Promise<void>;
}

interface SendOptions {
  tx?: AnyExecutor;
  startAfter?: Date | number;
  singletonKey?: string;
  retryLimit?: number;
  retryDelay?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
}

export interface JobQueue {
  readonly boss: PgBoss;
  start(): Promise<void>;
  ensureQueue(def: JobDefinition<any>): Promise<void>;
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** several jobs of one queue in one statement (same options for all) */
  sendMany<T extends object>(name: string, data: T[], options?: SendOptions): Promise<void>;
  stop(options?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

/** the PostgreSQL schema of pg-boss's tables */
export const QUEUE_SCHEMA = 'pgboss';

const ENSURE_QUEUE_ATTEMPTS = 5;
/** how long a pg-boss statement waits for one of its pool's connections before it fails */
const POOL_WAIT_MS = 10_000;

/** deadlock_detected, unique_violation, or a table another session created first (duplicate_table) */
function isCreateRace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '23505' || code === '42P07';
}

export function defineJob<T extends object>(def: JobDefinition<T>): JobDefinition<T> {
  return def;
}

/** How long pg-boss keeps finished jobs (SERVICE_JOB_ARCHIVE_AFTER_SECONDS, SERVICE_JOB_ARCHIVE_RETENTION_DAYS). */
export interface JobRetention {
  /** a completed job moves from the job table to the archive after this long */
  archiveCompletedAfterSeconds: number;
  /** an archived job is deleted after this long */
  deleteAfterDays: number;
}

export function createJobQueue(
  database: DatabaseHandle,
  options: { supervise: boolean; schedule: boolean; retention?: JobRetention },
): JobQueue {
  const common = {
    schema: QUEUE_SCHEMA,
    supervise: options.supervise,
    schedule: options.schedule,
    migrate: true,
    // finished jobs are kept for inspection, then archived and deleted by the supervising worker's
    // maintenance (pg-boss's own, in batches of its choosing)
    archiveCompletedAfterSeconds: options.retention?.archiveCompletedAfterSeconds ?? 43_200,
    deleteAfterDays: options.retention?.deleteAfterDays ?? 1,
  } as const;
  const boss =
    database.kind === 'pglite' || !database.connectionString
      ? new PgBoss({ ...common, db: database.sql })
      : new PgBoss({
          ...common,
          connectionString: database.connectionString,
          max: 4,
          application_name: 'service-api-jobs',
          // pg-pool never answers a query still waiting for a connection when the pool ends: a pg-boss
          // worker loop whose fetch waited there at stop never stopped, and pg-boss polls every second
          // for its workers to stop, so the process never exited. With this timeout such a wait fails
          // instead, the loop ends and so does the poll.
          // (pg-boss hands its options to pg.Pool; its types do not list this one)
          connectionTimeoutMillis: POOL_WAIT_MS,
        } as PgBoss.ConstructorOptions);
  boss.on('error', () => {
    /* pg-boss reports maintenance errors here; they are retried by pg-boss itself */
  });
  const ensured = new Set<string>();
  let started = false;

  return {
    boss,
    async start() {
      if (started) return;
      await boss.start();
      started = true;
    },
    async ensureQueue(def) {
      if (ensured.has(def.name)) return;
      // two processes starting at once both see no queue and create it: the loser's CREATE TABLE /
      // ATTACH PARTITION deadlocks (40P01) or hits a unique key (23505); the queue then exists or the
      // next try creates it
      for (let attempt = 1; ; attempt++) {
        try {
          const existing = await boss.getQueue(def.name);
          if (!existing) await boss.createQueue(def.name, { name: def.name, ...(def.queue ?? {}) });
          break;
        } catch (err) {
          if (attempt >= ENSURE_QUEUE_ATTEMPTS || !isCreateRace(err)) throw err;
          await new Promise((r) => setTimeout(r, 20 * attempt + Math.floor(Math.random() * 50)));
        }
      }
      ensured.add(def.name);
    },
    async send(name, data, opts = {}) {
      const sendOptions: PgBoss.SendOptions & { db?: unknown } = {};
      if (opts.startAfter !== undefined) sendOptions.startAfter = opts.startAfter instanceof Date ? opts.startAfter : opts.startAfter;
      if (opts.singletonKey) sendOptions.singletonKey = opts.singletonKey;
      if (opts.retryLimit !== undefined) sendOptions.retryLimit = opts.retryLimit;
      if (opts.retryDelay !== undefined) sendOptions.retryDelay = opts.retryDelay;
      if (opts.retryBackoff !== undefined) sendOptions.retryBackoff = opts.retryBackoff;
      if (opts.expireInSeconds !== undefined) sendOptions.expireInSeconds = opts.expireInSeconds;
      if (opts.tx) sendOptions.db = txSql(opts.tx);
      return boss.send(name, data, sendOptions as PgBoss.SendOptions);
    },
    async sendMany(name, items, opts = {}) {
      if (items.length === 0) return;
      const startAfter =
        opts.startAfter instanceof Date ? opts.startAfter : opts.startAfter !== undefined ? new Date(opts.startAfter) : undefined;
      const jobs: PgBoss.JobInsert[] = items.map((data) => ({
        name,
        data,
        ...(startAfter ? { startAfter } : {}),
        ...(opts.singletonKey ? { singletonKey: opts.singletonKey } : {}),
        ...(opts.retryLimit !== undefined ? { retryLimit: opts.retryLimit } : {}),
        ...(opts.retryDelay !== undefined ? { retryDelay: opts.retryDelay } : {}),
        ...(opts.retryBackoff !== undefined ? { retryBackoff: opts.retryBackoff } : {}),
        ...(opts.expireInSeconds !== undefined ? { expireInSeconds: opts.expireInSeconds } : {}),
      }));
      await boss.insert(jobs, (opts.tx ? { db: txSql(opts.tx) } : {}) as PgBoss.InsertOptions);
    },
    async stop(opts = {}) {
      if (!started) return;
      started = false;
      await boss.stop({ graceful: opts.graceful ?? true, wait: true, timeout: opts.timeoutMs ?? 30_000 });
    },
  };
}
