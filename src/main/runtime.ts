/**
 * Wires infrastructure for a process role and runs it:
 * - all:    API + worker in one process (embedded default; also fine with PostgreSQL)
 * - api:    HTTP only (production, xN behind a load balancer)
 * - worker: jobs only (production, xM)
 * In embedded mode the process also serves its PGlite database on a Unix socket so the CLI and psql
 * can reach it while the server runs.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { buildApp, PRETTY_TRANSPORT } from '../app.js';
import type { Config } from '../config.js';
import type { AppDeps } from '../modules/app-deps.js';
import { mediaSpoolDir, removeOrphanedSpoolFiles } from '../modules/media/media.module.js';
import { systemClock } from '../platform/clock.js';
import { type Counters, closeCounters, createCounters } from '../platform/counters/index.js';
import { type DatabaseHandle, openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import type { PgliteLock } from '../platform/db/pglite-dialect.js';
import { EventOutbox } from '../platform/events/outbox.js';
import { redactingLogOptions } from '../platform/logging/redact.js';
import { metricsWithCounterStores } from '../platform/metrics/index.js'; // metrics
import { serveMetrics } from '../platform/metrics/metrics-server.js'; // metrics
import { createJobQueue, type JobQueue } from '../platform/queue/job-queue.js';
import { startWorker, type WorkerHandle } from '../platform/queue/worker.js';
import { Encryptor, loadEncryptionKey } from '../platform/secrets/encryption.js';
import { composeRoot, type Root } from './composition.js';

// a bundle carries its version (scripts/bundle-options.ts defines it), so it runs from any directory;
// run from source, the version is read from package.json
declare const __SERVICE_VERSION__: string | undefined;
export const VERSION: string =
  typeof __SERVICE_VERSION__ === 'string'
    ? __SERVICE_VERSION__
    : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export type Role = 'all' | 'api' | 'worker';

export interface Runtime {
  deps: AppDeps;
  root: Root;
  app: FastifyInstance | null;
  worker: WorkerHandle | null;
  address: string | null;
  stop(): Promise<void>;
}

/**
 * Serves the embedded PGlite on a Unix socket; our in-process lock is held while a socket client is inside a
 * transaction. `afterClientQuery` runs once a client's query is done (the CLI writes through here: caches
 * of what it may change are invalidated before it learns of its commit).
 */
export async function serveEmbeddedSocket(
  pglite: PGlite,
  lock: PgliteLock,
  socketPath: string,
  logger: Logger,
  maxConnections = 8,
  afterClientQuery: () => Promise<void> = async () => {},
) {
  try {
    fs.rmSync(socketPath, { force: true });
  } catch {}
  let release: (() => void) | null = null;
  const guarded = new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'runExclusive') {
        return async <T>(fn: () => Promise<T>): Promise<T> => {
          if (!release) release = await lock.acquire();
          try {
            return await target.runExclusive(fn);
          } finally {
            await afterClientQuery().catch(() => undefined);
            if (!target.isInTransaction() && release) {
              const r = release;
              release = null;
              r();
            }
          }
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const { PGLiteSocketServer: SocketServer } = await import('@electric-sql/pglite-socket');
  const server = new SocketServer({ db: guarded, path: socketPath, maxConnections });
  await server.start();
  fs.chmodSync(socketPath, 0o600);
  logger.info({ socketPath }, 'embedded database served on a local socket (psql -h <data dir>)');
  return server;
}

/** The dependencies of a process over its open database, counters and queue (a server's, or one CLI command's). */
export function processDeps(config: Config, database: DatabaseHandle, counters: Counters, jobs: JobQueue): AppDeps {
  const encryptor = new Encryptor(loadEncryptionKey(config.env.SERVICE_ENCRYPTION_KEY, config.dataDir));
  const events = new EventOutbox(() => systemClock.now());
  const metrics = metricsWithCounterStores(counters);
  return { config, database, counters, jobs, encryptor, events, clock: systemClock, metrics, version: VERSION };
}

export interface RuntimeOptions {
  logger?: Logger;
  /** start-up steps as they begin (the CLI shows them while the embedded database initialises) */
  progress?: (step: string) => void;
}

export async function startRuntime(config: Config, role: Role, opts: RuntimeOptions = {}): Promise<Runtime> {
  const logger =
    opts.logger ??
    pino({
      level: config.env.SERVICE_LOG_LEVEL,
      ...redactingLogOptions(),
      ...(process.stdout.isTTY ? { transport: PRETTY_TRANSPORT } : {}),
    });
  const progress = opts.progress ?? (() => {});
  let database: DatabaseHandle | null = null;
  try {
    if (config.embedded) {
      const fresh = !fs.existsSync(path.join(config.dataDir, 'pgdata', 'PG_VERSION'));
      progress(
        fresh
          ? `creating the embedded database in ${config.dataDir} (first start: this takes a few seconds)`
          : `opening the embedded database in ${config.dataDir}`,
      );
    } else progress('connecting to PostgreSQL (DATABASE_URL)');
    database = await openDatabase(config);
    progress('applying database migrations');
    await migrateToLatest(database.db);
  } catch (err) {
    await database?.close().catch(() => undefined);
    throw err;
  }
  const counters = createCounters(config.env.REDIS_URL);
  const runsWorker = role !== 'api';
  const jobs = createJobQueue(database, {
    supervise: runsWorker,
    schedule: runsWorker,
    retention: {
      archiveCompletedAfterSeconds: config.env.SERVICE_JOB_ARCHIVE_AFTER_SECONDS,
      deleteAfterDays: config.env.SERVICE_JOB_ARCHIVE_RETENTION_DAYS,
    },
  });
  const deps = processDeps(config, database, counters, jobs);
  const { metrics } = deps;
  await jobs.start();
  const root = composeRoot(deps, { logger });

  let socketServer: PGLiteSocketServer | null = null;
  if (database.pglite && database.lock)
    socketServer = await serveEmbeddedSocket(database.pglite, database.lock, config.dbSocketPath, logger, 8, () =>
      root.areas.tools.afterOutsideWrite(),
    );

  let app: FastifyInstance | null = null;
  let address: string | null = null;
  if (role !== 'worker') {
    // uploads cut off by a crash leave spool files; nothing in progress can be older than a request may take
    const removed = await removeOrphanedSpoolFiles(mediaSpoolDir(config), config.env.SERVICE_REQUEST_TIMEOUT_SECONDS * 1000);
    if (removed > 0) logger.info({ removed }, 'removed orphaned media spool files');
    progress('starting the HTTP server');
    app = await buildApp(root);
    address = await app.listen({ port: config.env.PORT, host: config.env.HOST });
    // the schemas no request has used yet, compiled in the background so that first answers do not wait
    void app.compileRemainingSchemas().then((failures) => {
      for (const f of failures) logger.error({ err: f.error, route: f.route }, 'a route schema does not compile');
    });
    if ((await root.areas.identity.service.organizationCount()) === 0) {
      logger.info(
        'empty database: create an organization, its owner and an API key with\n' +
          '  npx service-api bootstrap --organization "Acme" --email admin@acme.test --password \'<password>\' --json',
      );
    }
  }
  const worker = runsWorker
    ? await startWorker({
        db: database.db,
        queue: jobs,
        jobs: root.jobs,
        heartbeatSeconds: config.env.SERVICE_WORKER_HEARTBEAT_SECONDS,
        logger,
        metrics,
      })
    : null;
  // a worker serves no API: its metrics get their own port when configured
  const metricsServer =
    role === 'worker' && config.env.SERVICE_WORKER_METRICS_PORT > 0
      ? await serveMetrics({
          metrics,
          host: config.env.HOST,
          port: config.env.SERVICE_WORKER_METRICS_PORT,
          internalToken: config.env.SERVICE_INTERNAL_TOKEN,
          principalToken: config.env.SERVICE_PRINCIPAL_TOKEN,
        })
      : null;

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      const timeoutMs = config.env.SERVICE_SHUTDOWN_TIMEOUT_SECONDS * 1000;
      // 1. stop taking requests, let requests in flight finish
      await app?.close();
      // 2. let jobs in flight finish
      await metricsServer?.close();
      if (worker) await worker.stop(timeoutMs);
      else await jobs.stop({ graceful: true, timeoutMs });
      // the webhook receivers' kept-alive connections
      await root.areas.webhooks.deliverer.close();
      await socketServer?.stop().catch(() => undefined);
      await closeCounters(counters);
      // 3. close the database
      await database!.close();
      if (socketServer) fs.rmSync(config.dbSocketPath, { force: true });
    })();
    return stopping;
  };
  return { deps, root, app, worker, address, stop };
}
