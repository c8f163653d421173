/**
 * Test harness: buildApp on a freshly migrated database — in-memory PGlite by default, or a new
 * database on the PostgreSQL server of DATABASE_URL (created here, dropped on close) — with real
 * counters (memory, or Redis with a private key prefix when REDIS_URL is set) and real pg-boss.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { type Config, type Env, loadConfig } from '../../src/config.js';
import { PUBLIC_SCOPES } from '../../src/http/principal.js';
import { composeRoot, type Root } from '../../src/main/composition.js';
import type { AppDeps } from '../../src/modules/app-deps.js';
import { BrandsService } from '../../src/modules/brands/brands.service.js';
import type { Database } from '../../src/modules/database.js';
import { IdentityService } from '../../src/modules/identity/identity.service.js';
import type { Clock } from '../../src/platform/clock.js';
import { closeCounters, createCounters } from '../../src/platform/counters/index.js';
import { type DatabaseHandle, openPglite, openPostgres } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { EventOutbox } from '../../src/platform/events/outbox.js';
import { metricsWithCounterStores } from '../../src/platform/metrics/index.js';
import { createJobQueue } from '../../src/platform/queue/job-queue.js';
import { startWorker, type WorkerHandle } from '../../src/platform/queue/worker.js';
import { Encryptor } from '../../src/platform/secrets/encryption.js';
import { installOpenApiCheck } from './openapi-check.js';

export const REAL_DATABASE_URL = process.env.DATABASE_URL || null;
export const REAL_REDIS_URL = process.env.REDIS_URL || null;

/** A settable clock for tests of windows, leases and expiry. */
export class TestClock implements Clock {
  constructor(private t = Date.now()) {}
  now(): Date {
    return new Date(this.t);
  }
  set(ms: number | Date): void {
    this.t = typeof ms === 'number' ? ms : ms.getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** The migrations' source and the engine versions: what a migrated template database depends on. */
function schemaHash(): string {
  const hash = createHash('sha256');
  const migDir = path.resolve(import.meta.dirname, '../../src/platform/db/migrations');
  for (const f of fs.readdirSync(migDir).sort()) hash.update(f).update(fs.readFileSync(path.join(migDir, f)));
  for (const pkg of ['@electric-sql/pglite', 'pg-boss'])
    hash.update(fs.readFileSync(path.resolve(import.meta.dirname, `../../node_modules/${pkg}/package.json`)));
  return hash.digest('hex').slice(0, 16);
}

/** Migrations and the pg-boss schema, as every context's database has them. */
async function migrateWithQueue(database: DatabaseHandle): Promise<void> {
  await migrateToLatest(database.db);
  const boss = createJobQueue(database, { supervise: false, schedule: false });
  await boss.start();
  await boss.stop({ graceful: false, timeoutMs: 1000 });
}

/**
 * A migrated PGlite (with the pg-boss schema) dumped once and cached in the temp dir, keyed by the
 * migrations' source and the engine versions; each context loads it in ~1 s instead of ~5 s of initdb.
 */
let templatePromise: Promise<Blob> | null = null;
function pgliteTemplate(): Promise<Blob> {
  templatePromise ??= (async () => {
    const file = path.join(os.tmpdir(), `service-api-pglite-template-${schemaHash()}.tar`);
    if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
    const db = await openPglite('memory://');
    await migrateWithQueue(db);
    const blob = await db.pglite!.dumpDataDir('none');
    await db.close();
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
    fs.renameSync(tmp, file);
    return blob;
  })();
  return templatePromise;
}

/**
 * The same on PostgreSQL: a migrated database kept on the server as a template (named by the schema hash)
 * that each context's database is copied from, which costs the server a file copy instead of every
 * migration. Built under a temporary name and renamed when complete, so a concurrent run either finds it
 * whole or builds its own (the loser of the rename drops its copy).
 */
const postgresTemplates = new Map<string, Promise<string>>();
function postgresTemplate(baseUrl: string): Promise<string> {
  let made = postgresTemplates.get(baseUrl);
  if (!made) {
    made = (async () => {
      const name = `service_api_template_${schemaHash()}`;
      const admin = new pg.Client({ connectionString: baseUrl });
      await admin.connect();
      try {
        const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
        if (found.rowCount) return name;
        const building = await freshPostgres(baseUrl);
        const database = openPostgres(building.url, 2);
        try {
          await migrateWithQueue(database);
        } finally {
          await database.close();
        }
        const buildingName = new URL(building.url).pathname.slice(1);
        await admin.query(`alter database ${buildingName} rename to ${name}`).catch(async (e: { code?: string }) => {
          // another run renamed its copy first: 42P04 when its rename had committed, 23505 (the catalog's
          // unique name index) when both renames ran at the same moment
          if (e.code !== '42P04' && e.code !== '23505') throw e;
          await building.drop();
        });
        return name;
      } finally {
        await admin.end();
      }
    })();
    postgresTemplates.set(baseUrl, made);
  }
  return made;
}

export async function freshPostgres(
  baseUrl: string,
  opts: { template?: string } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}${opts.template ? ` template ${opts.template}` : ''}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestContext {
  app: FastifyInstance;
  deps: AppDeps;
  /** the composition root the app was built from: shared pieces, areas, subscriptions, jobs */
  root: Root;
  config: Config;
  database: DatabaseHandle<Database>;
  clock: TestClock;
  /** starts a worker running every job definition (not started by default) */
  startWorker(): Promise<WorkerHandle>;
  /** an organization with an API key (all public scopes unless given) */
  createOrganization(opts?: {
    name?: string;
    scopes?: string[];
  }): Promise<{ organizationId: string; userId: string; apiKey: string; auth: Record<string, string> }>;
  createBrand(organizationId: string, name: string, extra?: { slug?: string; timezone?: string }): Promise<{ brandId: string }>;
  /** with checkOpenApi: answers that disagree with the document, and the `operationId status` pairs seen */
  openApi: { problems: string[]; covered(): Set<string> } | null;
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  overrides?: Partial<Env>;
  /** use the real Redis of REDIS_URL (default: when REDIS_URL is set) */
  redis?: boolean;
  /** share counters between two apps (two-process tests): pass the same prefix */
  redisPrefix?: string;
  /** share a database between two apps */
  database?: DatabaseHandle;
  clock?: TestClock;
  /** check every answer against the OpenAPI document (default: on; SERVICE_TEST_OPENAPI_CHECK=0 turns it off); close() fails on a mismatch */
  checkOpenApi?: boolean;
  /** the encryption key (default: random), for tests whose other processes read encrypted secrets */
  encryptionKey?: Buffer;
  /** routes a test adds to the app before it is ready (they get every hook the service's routes get) */
  routes?: (app: FastifyInstance) => void;
}

export async function createTestContext(opts: HarnessOptions = {}): Promise<TestContext> {
  const clock = opts.clock ?? new TestClock();
  const useRedis = (opts.redis ?? true) && REAL_REDIS_URL !== null;
  const env: Record<string, string> = {
    SERVICE_DATA_DIR: `/tmp/service-api-test-${randomBytes(4).toString('hex')}`,
    SERVICE_LOG_LEVEL: 'silent',
    ...(useRedis ? { REDIS_URL: REAL_REDIS_URL! } : {}),
    ...opts.env,
  };
  let drop: (() => Promise<void>) | null = null;
  let database = opts.database;
  const ownsDatabase = !database;
  if (!database) {
    if (REAL_DATABASE_URL) {
      const fresh = await freshPostgres(REAL_DATABASE_URL, { template: await postgresTemplate(REAL_DATABASE_URL) });
      drop = fresh.drop;
      env.DATABASE_URL = fresh.url;
      database = openPostgres(fresh.url, 5);
    } else {
      database = await openPglite('memory://', await pgliteTemplate());
    }
    await migrateToLatest(database.db);
  }
  const config = loadConfig(env, opts.overrides);
  const counters = createCounters(config.env.REDIS_URL, {
    now: () => clock.now().getTime(),
    prefix: `test:${opts.redisPrefix ?? randomBytes(6).toString('hex')}:`,
  });
  const jobs = createJobQueue(database, { supervise: false, schedule: false });
  await jobs.start();
  const deps: AppDeps = {
    config,
    database,
    counters,
    jobs,
    encryptor: new Encryptor(opts.encryptionKey ?? randomBytes(32)),
    events: new EventOutbox(() => clock.now()),
    clock,
    metrics: metricsWithCounterStores(counters),
    version: '0.1.0-test',
  };
  const root = composeRoot(deps);
  const app = await buildApp(root, { logger: false });
  const openApi = (opts.checkOpenApi ?? process.env.SERVICE_TEST_OPENAPI_CHECK !== '0') ? installOpenApiCheck(app) : null;
  opts.routes?.(app);
  await app.ready();
  const workers: WorkerHandle[] = [];

  return {
    app,
    deps,
    root,
    config,
    database,
    clock,
    openApi,
    async startWorker() {
      const w = await startWorker({
        db: database!.db,
        queue: jobs,
        jobs: root.jobs,
        heartbeatSeconds: 1,
        logger: pino({ level: 'silent' }),
        metrics: deps.metrics,
      });
      workers.push(w);
      return w;
    },
    async createOrganization(o = {}) {
      const identity = new IdentityService(database!.db);
      const email = `owner-${randomBytes(5).toString('hex')}@example.test`;
      const boot = await identity.bootstrap({ organization: o.name ?? 'Test Org', email, password: 'correct horse battery' }, clock.now());
      let apiKey = boot.apiKey;
      if (o.scopes) apiKey = (await identity.createApiKeyFor({ organizationId: boot.organizationId, scopes: o.scopes })).apiKey;
      return { organizationId: boot.organizationId, userId: boot.userId, apiKey, auth: { authorization: `Bearer ${apiKey}` } };
    },
    async createBrand(organizationId, name, extra = {}) {
      const b = await new BrandsService(database!.db).create(organizationId, { name, ...extra }, clock.now());
      return { brandId: b.brandId };
    },
    async close() {
      await app.close();
      for (const w of workers) await w.stop(5000);
      await root.areas.webhooks.deliverer.close();
      await jobs.stop({ graceful: false, timeoutMs: 1000 }).catch(() => undefined);
      await closeCounters(counters);
      if (ownsDatabase) await database!.close();
      if (drop) await drop();
      if (openApi?.problems.length) throw new Error(`answers the OpenAPI document does not describe:\n${openApi.problems.join('\n')}`);
    },
  };
}

export const ALL_SCOPES = [...PUBLIC_SCOPES];
