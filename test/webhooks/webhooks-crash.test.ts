/**
 * Crash safety of webhook delivery with real `service-api worker` processes killed with SIGKILL:
 * - killed between the state change and the delivery: after a restart every event is delivered exactly
 *   once (the delivery job committed with the change, the outbox);
 * - killed mid-delivery: the event is delivered again (at least once) with the same webhook-id, once the
 *   killed worker's lease on the delivery ends.
 * On PostgreSQL (DATABASE_URL) the worker shares the test's database; on embedded PGlite the test serves
 * its database on a Unix socket the way `service-api start` does, and the worker connects through it.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { serveEmbeddedSocket } from '../../src/main/runtime.js';
import { embeddedSocketUrl } from '../../src/platform/db/database.js';
import { LiveClock } from '../publishing/publishing-harness.js';
import { createTestContext, REAL_DATABASE_URL, type TestClock, type TestContext } from '../support/harness.js';
import { serviceArgs } from '../support/service-process.js';
import { Receivers, until } from './webhook-receiver.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EVENTS = 20;

describe('webhook delivery survives a killed worker', () => {
  let ctx: TestContext;
  let socket: PGLiteSocketServer | null = null;
  let socketDir = '';
  let env: Record<string, string>;
  const hooks = new Receivers();
  const children: ChildProcess[] = [];
  const logs: (() => string)[] = [];
  const key = randomBytes(32);

  const spawnWorker = async () => {
    const child = spawn(process.execPath, serviceArgs('worker'), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    logs.push(() => `pid ${child.pid} exit ${child.exitCode} ${child.signalCode}: ${stderr.slice(-1500)}`);
    child.stdout?.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000);
    });
    child.stderr?.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-4000);
    });
    children.push(child);
    // ready once its heartbeat row is written (after migrations and queue setup)
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`worker exited ${child.exitCode}: ${stderr}`);
        return ctx.database.db.selectFrom('worker_heartbeats').select('pid').where('pid', '=', child.pid!).executeTakeFirst();
      },
      60_000,
      'worker heartbeat',
    );
    return child;
  };
  const kill = async (child: ChildProcess) => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };

  before(async () => {
    await hooks.start();
    const common = {
      SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
      SERVICE_WEBHOOK_TIMEOUT_MS: '2000',
      SERVICE_WEBHOOK_RETRY_DELAY_PERCENT: '100',
    };
    ctx = await createTestContext({ env: common, clock: new LiveClock() as TestClock, encryptionKey: key });
    env = {
      ...common,
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_DATA_DIR: ctx.config.dataDir,
      SERVICE_ENCRYPTION_KEY: key.toString('base64'),
      SERVICE_DB_POOL_SIZE: '2',
      SERVICE_WORKER_HEARTBEAT_SECONDS: '1',
    };
    if (REAL_DATABASE_URL) {
      env.DATABASE_URL = ctx.config.env.DATABASE_URL!;
    } else {
      socketDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wh-crash-'));
      const socketPath = path.join(socketDir, '.s.PGSQL.5432');
      const { pglite, lock } = ctx.database;
      socket = await serveEmbeddedSocket(pglite!, lock!, socketPath, pino({ level: 'silent' }), 32);
      env.DATABASE_URL = embeddedSocketUrl(socketPath);
    }
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await socket?.stop().catch(() => undefined);
    await hooks.stop();
    await ctx?.close();
    if (socketDir) fs.rmSync(socketDir, { recursive: true, force: true });
  });

  it('killed between the state change and the delivery: every event is delivered exactly once after a restart', {
    timeout: 180_000,
  }, async () => {
    const org = await ctx.createOrganization();
    const r = await ctx.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: org.auth,
      payload: { url: hooks.url('/outbox') },
    });
    assert.equal(r.statusCode, 201, r.body);
    const { secret } = r.json();
    const first = await spawnWorker();
    // frozen, then killed: the events commit while the worker is alive but before it can deliver them
    first.kill('SIGSTOP');
    // a claim it sent just before stopping is answered (empty) before the events exist
    await new Promise((res) => setTimeout(res, 1_500));
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const e = await ctx.database.db
        .transaction()
        .execute((tx) => ctx.deps.events.record(tx, { organizationId: org.organizationId, type: 'publish_job.created', data: { i } }));
      ids.push(e.id);
    }
    await kill(first);
    assert.equal(hooks.at('/outbox').length, 0);

    await spawnWorker();
    await hooks.waitFor('/outbox', EVENTS, 60_000).catch(async (e) => {
      const { sql } = await import('kysely');
      const ds = await sql`select status, attempt_count, last_error, claim_at from webhook_deliveries`.execute(ctx.database.db);
      console.log(JSON.stringify(ds.rows.slice(0, 5)), ds.rows.length, logs.map((l) => l()).join('\n'));
      throw e;
    });
    await new Promise((res) => setTimeout(res, 3_000));
    const got = hooks.at('/outbox');
    assert.equal(got.length, EVENTS, 'no event delivered twice');
    assert.deepEqual(got.map((x) => x.headers['webhook-id']).sort(), [...ids].sort());
    for (const x of got) new Webhook(secret).verify(x.body, x.headers);
  });

  it('killed mid-delivery: the event is delivered again with the same webhook-id', { timeout: 180_000 }, async () => {
    const org = await ctx.createOrganization();
    let hold = true;
    const url = hooks.url('/mid', async () => {
      // the first request never gets its answer: the worker sending it is killed meanwhile
      if (hold) await new Promise(() => undefined);
    });
    const r = await ctx.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: org.auth, payload: { url } });
    assert.equal(r.statusCode, 201, r.body);
    const { secret, webhookEndpointId } = r.json();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) await kill(c);
    const worker = await spawnWorker();
    const event = await ctx.database.db
      .transaction()
      .execute((tx) => ctx.deps.events.record(tx, { organizationId: org.organizationId, type: 'publish_job.created', data: {} }));
    await hooks.waitFor('/mid', 1, 60_000);
    await kill(worker);
    hold = false;

    await spawnWorker();
    // the attempt died with its worker and left no outcome: its claim's lease (the 2 s timeout and a
    // margin) ends and the new worker claims it again
    const got = await hooks.waitFor('/mid', 2, 90_000);
    assert.equal(got[0]!.headers['webhook-id'], event.id);
    assert.equal(got[1]!.headers['webhook-id'], event.id);
    new Webhook(secret).verify(got[1]!.body, got[1]!.headers);
    const log = await until(async () => {
      const l = await ctx.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${webhookEndpointId}/deliveries`, headers: org.auth });
      const d = l.json().data[0];
      return d?.status === 'delivered' ? d : null;
    });
    assert.equal(log.eventId, event.id);
    assert.equal(log.attemptCount, 1);
  });
});
