/**
 * Webhooks benchmark: EVENTS events (default 30,000), each fanned out to ENDPOINTS loopback endpoints
 * (default 10) of one organization, delivered by one `service-api worker` process on PostgreSQL. The
 * receivers verify every signature with the standardwebhooks library, after the run (`Receiver`). Events are recorded at RATE
 * events/s (default 300, i.e. 3,000 deliveries/s offered), each in its own transaction like a real state change.
 *
 * Reports: deliveries/s, latency p50/p99 from the state change (the event's commit, its createdAt) to the
 * receiver, duplicates, the worker's CPU time per delivery (load-independent, unlike the rates on a shared
 * machine) with the load average, and a baseline measured in the same run: a plain HTTP POST loop (16 at
 * once, connections kept alive like the worker's) to the same receivers, for the delivery path's overhead.
 * Target: every delivery made at the offered rate (deliveries/s at least 95% of EVENTS x ENDPOINTS / the
 * recording time), p99 < TARGET_P99_MS (default 1,000 ms), no duplicate, no invalid signature.
 *
 * Run: npm run bench:webhooks            (DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/test)
 *      EVENTS=1000 RATE=50 npm run bench:webhooks   (a small run)
 *      EVENTS=10000 RATE=100 TARGET_P99_MS=2000 npm run bench:webhooks   (the earlier 1,000/s shape)
 *      WARMUP=2000 npm run bench:webhooks   (the worker first delivers 2,000 events, about 150 a second, not
 *        measured: a worker that has run before, as a production worker has, instead of one started cold
 *        into the burst, whose first second of interpreted code and new connections builds a backlog)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { composeRoot } from '../src/main/composition.js';
import type { AppDeps } from '../src/modules/app-deps.js';
import { IdentityService } from '../src/modules/identity/identity.service.js';
import { systemClock } from '../src/platform/clock.js';
import { createCounters } from '../src/platform/counters/index.js';
import { openPostgres } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { EventOutbox } from '../src/platform/events/outbox.js';
import { metricsWithCounterStores } from '../src/platform/metrics/index.js';
import { createJobQueue } from '../src/platform/queue/job-queue.js';
import { Encryptor } from '../src/platform/secrets/encryption.js';
import { freshPostgres } from '../test/support/harness.js';
import { serverCpuSeconds, serverWal, tableUpdates } from './support/pg-cpu.js';
import { bundleServiceCli } from './support/service-bundle.js';
import { percentile as pct, sleep } from './support/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const EVENTS = Number(process.env.EVENTS ?? 30_000);
const ENDPOINTS = Number(process.env.ENDPOINTS ?? 10);
const RATE = Number(process.env.RATE ?? 300);
const TARGET_P99_MS = Number(process.env.TARGET_P99_MS ?? 1_000);
const WARMUP = Number(process.env.WARMUP ?? 0);
const BASELINE = Number(process.env.BASELINE ?? Math.min(EVENTS * ENDPOINTS, 20_000));

/** A database of its own for the run, dropped at the end. */
const freshDatabase = () => freshPostgres(BASE_URL);

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
const cpuSecondsOf = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
};

/**
 * One loopback receiver: records each delivery (the latency from the event's createdAt, its id, the
 * signed body and headers) and answers at once; every signature is verified after the run. The
 * standardwebhooks library hashes in JavaScript (several times the CPU of node:crypto), and verifying
 * 3,000 deliveries a second in this process took CPU from the worker and PostgreSQL on a 2-core host: a
 * receiver runs on a machine of its own, so its verification is not part of the service's figures.
 */
class Receiver {
  server!: Server;
  url = '';
  verifier: Webhook | null = null;
  readonly latencies: number[] = [];
  /** each delivery's event time (ms since the epoch), beside its latency: the latency over the run */
  readonly createdAt: number[] = [];
  readonly seen = new Map<string, number>();
  /** the deliveries as received, verified by `verifyAll` after the run */
  private readonly signed: Array<{ body: string; headers: Record<string, string> }> = [];
  invalid = 0;
  raw = 0;
  lastAt = 0;

  /** the deliveries so far (the warm-up's) leave the latency figures; their duplicates and signatures still count */
  forgetMeasured() {
    this.latencies.length = 0;
    this.createdAt.length = 0;
  }

  async start(index: number) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const now = Date.now();
        if (req.headers['x-baseline']) {
          this.raw++;
          res.writeHead(204).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        };
        try {
          const payload = JSON.parse(body) as { id: string; createdAt: string };
          const created = Date.parse(payload.createdAt);
          this.latencies.push(now - created);
          this.createdAt.push(created);
          this.seen.set(payload.id, (this.seen.get(payload.id) ?? 0) + 1);
          this.signed.push({ body, headers });
          this.lastAt = now;
        } catch {
          this.invalid++;
        }
        res.writeHead(204).end();
      });
    });
    this.server.keepAliveTimeout = 5_000;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/${index}`;
  }

  /** Verifies every signature received (the timestamp tolerance of the library is 5 minutes: the run is shorter). */
  verifyAll() {
    for (const { body, headers } of this.signed) {
      try {
        this.verifier!.verify(body, headers);
      } catch {
        this.invalid++;
      }
    }
  }
}

/** A plain POST loop to the receivers: what the same number of HTTP requests costs without the delivery path. */
async function baseline(receivers: Receiver[], n: number) {
  const body = JSON.stringify({ id: 'evt_baseline', type: 'publish_job.created', data: { text: 'x'.repeat(200) } });
  const latencies: number[] = [];
  // connections kept alive, like the worker's (one pool per receiver address)
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        const r = await request(receivers[i % receivers.length]!.url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'x-baseline': '1' },
          body,
        });
        await r.body.dump();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: n / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

async function main() {
  const fresh = await freshDatabase();
  const key = randomBytes(32);
  const env = {
    DATABASE_URL: fresh.url,
    SERVICE_ENCRYPTION_KEY: key.toString('base64'),
    SERVICE_OUTBOUND_ALLOW_ADDRESSES_FOR_TESTS: '127.0.0.1/32',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_DATA_DIR: `/tmp/bench-webhooks-${randomBytes(4).toString('hex')}`,
  };
  const config = loadConfig(env);
  const database = openPostgres(fresh.url, 12);
  let worker: ChildProcess | null = null;
  const receivers: Receiver[] = [];
  try {
    await migrateToLatest(database.db);
    const jobs = createJobQueue(database, { supervise: false, schedule: false });
    await jobs.start();
    const counters = createCounters(undefined);
    const deps: AppDeps = {
      config,
      database,
      counters,
      jobs,
      encryptor: new Encryptor(key),
      events: new EventOutbox(() => systemClock.now()),
      clock: systemClock,
      metrics: metricsWithCounterStores(counters),
      version: 'bench',
    };
    const webhooks = composeRoot(deps).areas.webhooks;
    await jobs.ensureQueue(webhooks.deliverJob);
    const org = await new IdentityService(database.db).bootstrap(
      { organization: 'Bench', email: 'bench@example.test', password: 'correct horse battery' },
      new Date(),
    );
    for (let i = 0; i < ENDPOINTS; i++) {
      const r = new Receiver();
      await r.start(i);
      const ep = await webhooks.service.create(org.organizationId, { url: r.url });
      r.verifier = new Webhook(ep.secret);
      receivers.push(r);
    }

    const base = await baseline(receivers, BASELINE);
    console.log(
      `baseline: ${BASELINE} plain POSTs, 16 at once: ${base.perSecond.toFixed(0)} requests/s, p50 ${base.p50.toFixed(1)} ms, p99 ${base.p99.toFixed(1)} ms`,
    );

    // the production bundle (npm run build), not the TypeScript loader
    const WORKER_CLI = await bundleServiceCli('bench-webhooks');
    worker = spawn(
      process.execPath,
      // e.g. BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the worker
      [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), WORKER_CLI, 'worker'],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    for (;;) {
      const beat = await database.db.selectFrom('worker_heartbeats').select('pid').where('pid', '=', worker.pid!).executeTakeFirst();
      if (beat) break;
      if (worker.exitCode !== null) throw new Error('the worker exited');
      await sleep(200);
    }

    const received = () => receivers.reduce((n, r) => n + r.latencies.length, 0);
    if (WARMUP > 0) {
      const warmStart = Date.now();
      for (let i = 0; i < WARMUP; i++) {
        await database.db.transaction().execute((tx) =>
          deps.events.record(tx, {
            organizationId: org.organizationId,
            type: 'publish_job.created',
            data: { warmup: i, text: 'x'.repeat(200) },
          }),
        );
        await sleep(5);
      }
      while (received() < WARMUP * ENDPOINTS) await sleep(100);
      for (const r of receivers) r.forgetMeasured();
      console.log(`warm-up: ${WARMUP} events delivered in ${((Date.now() - warmStart) / 1000).toFixed(1)} s (not measured)`);
    }
    const total = EVENTS * ENDPOINTS;
    console.log(`recording ${EVENTS} events at ${RATE}/s to ${ENDPOINTS} endpoints (${total} deliveries), one worker`);
    const cpuBefore = cpuSecondsOf(worker.pid!);
    const pgCpuBefore = await serverCpuSeconds(database.db);
    const walBefore = await serverWal(database.db);
    const updatesBefore = await tableUpdates(database.db, 'webhook_deliveries');
    const started = Date.now();
    let recorded = 0;
    let maxBacklog = 0;
    // each tick records the events due by now, 8 transactions at once
    while (recorded < EVENTS) {
      const due = Math.min(EVENTS, Math.floor(((Date.now() - started) / 1000) * RATE) + 1);
      const batch: Promise<unknown>[] = [];
      while (recorded < due) {
        const i = recorded++;
        batch.push(
          database.db.transaction().execute((tx) =>
            deps.events.record(tx, {
              organizationId: org.organizationId,
              type: 'publish_job.created',
              data: { n: i, text: 'x'.repeat(200) },
            }),
          ),
        );
        if (batch.length >= 8) await Promise.all(batch.splice(0));
      }
      await Promise.all(batch);
      maxBacklog = Math.max(maxBacklog, recorded * ENDPOINTS - received());
      await sleep(10);
    }
    const recordSeconds = (Date.now() - started) / 1000;
    // a worker that keeps up finishes within a second or two; one that does not is reported as it stands
    const deadline = Date.now() + Math.max(60_000, recordSeconds * 1000);
    while (received() < total && Date.now() < deadline) {
      maxBacklog = Math.max(maxBacklog, total - received());
      await sleep(100);
    }
    const workerCpu = cpuSecondsOf(worker.pid!) - cpuBefore;
    const pgCpu = (await serverCpuSeconds(database.db)) - pgCpuBefore;
    const walAfter = await serverWal(database.db);
    // the statistics of the worker's backends reach the cumulative view within a second or two
    await sleep(2000);
    const updatesAfter = await tableUpdates(database.db, 'webhook_deliveries');
    const updates = updatesAfter.updates - updatesBefore.updates;
    const hotUpdates = updatesAfter.hot - updatesBefore.hot;
    const lastAt = Math.max(...receivers.map((r) => r.lastAt));
    const all = receivers.flatMap((r) => r.latencies).sort((a, b) => a - b);
    // p99 of the deliveries of the events of each tenth of the recording: where in the run the tail is
    const windowMs = (recordSeconds * 1000) / 10;
    const windows: number[][] = Array.from({ length: 10 }, () => []);
    for (const r of receivers)
      r.createdAt.forEach((c, i) => {
        windows[Math.max(0, Math.min(9, Math.floor((c - started) / windowMs)))]!.push(r.latencies[i]!);
      });
    const overRun = windows.map((w) =>
      w.length > 0
        ? pct(
            w.sort((a, b) => a - b),
            99,
          )
        : Number.NaN,
    );
    const duplicates = receivers.reduce((n, r) => n + [...r.seen.values()].filter((c) => c > 1).length, 0);
    for (const r of receivers) r.verifyAll();
    const invalid = receivers.reduce((n, r) => n + r.invalid, 0);
    const seconds = (lastAt - started) / 1000;
    const offered = total / recordSeconds;
    console.log(
      [
        `recorded ${EVENTS} events in ${recordSeconds.toFixed(1)} s (${(EVENTS / recordSeconds).toFixed(0)} events/s)`,
        `delivered ${all.length}/${total} in ${seconds.toFixed(1)} s: ${(all.length / seconds).toFixed(0)} deliveries/s`,
        `latency state change -> receiver: p50 ${pct(all, 50)} ms, p99 ${pct(all, 99)} ms, max ${all[all.length - 1]} ms`,
        `p99 by tenth of the recording (ms): ${overRun.join(' ')}`,
        `largest backlog ${maxBacklog} deliveries; duplicates ${duplicates}; invalid signatures ${invalid}`,
        `worker CPU ${workerCpu.toFixed(1)} s: ${((workerCpu * 1e6) / Math.max(1, all.length)).toFixed(0)} us per delivery; load average ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        `PostgreSQL server CPU ${pgCpu.toFixed(1)} s: ${((pgCpu * 1e6) / Math.max(1, all.length)).toFixed(0)} us per delivery (the recording's and the worker's statements, WAL, checkpoints, autovacuum)`,
        `PostgreSQL write-ahead log: ${((walAfter.records - walBefore.records) / Math.max(1, all.length)).toFixed(1)} records, ${(
          (walAfter.bytes - walBefore.bytes) / Math.max(1, all.length)
        ).toFixed(0)} bytes per delivery; ${(updates / Math.max(1, all.length)).toFixed(2)} row updates per delivery, ${(
          (100 * hotUpdates) / Math.max(1, updates)
        ).toFixed(1)}% of them HOT (no index entry written)`,
        `offered ${offered.toFixed(0)} deliveries/s (${EVENTS} x ${ENDPOINTS} over the ${recordSeconds.toFixed(1)} s of recording) = ${(
          (100 * offered) / base.perSecond
        ).toFixed(
          0,
        )}% of the same-run baseline (${base.perSecond.toFixed(0)} plain POSTs/s); delivered ${(all.length / seconds).toFixed(0)}/s = ${(
          (100 * all.length) / seconds / offered
        ).toFixed(1)}% of offered`,
        `target: all delivered at >= 95% of the offered rate, p99 < ${TARGET_P99_MS} ms, no duplicate: ${
          pct(all, 99) < TARGET_P99_MS &&
          all.length === total &&
          all.length / seconds >= 0.95 * offered &&
          duplicates === 0 &&
          invalid === 0
            ? 'met'
            : 'NOT met'
        }`,
      ].join('\n'),
    );
    await jobs.stop({ graceful: false, timeoutMs: 1000 });
  } finally {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((r) => worker!.once('exit', r));
    }
    for (const r of receivers) r.server.close();
    await database.close();
    await fresh.drop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
