/**
 * Publishing benchmark: N targets scheduled for the same second are published by one and by two
 * `service-api worker` processes on real PostgreSQL, against the Meta simulator (Facebook Page text
 * posts, answered at once) running in its own process. Reports throughput (targets/s from the due
 * second to the last receipt) and lateness p50/p99 (scheduledAt -> the simulator receiving the post).
 *
 * Targets: p99 lateness < 2 s for 1,000 targets with one worker; two workers >= 1.6x one worker's
 * throughput. Targets are spread over 100 channels (50 organizations x 2 pages) so that per-channel
 * policies (standard: 4 in flight, 120 per minute) do not cap the run.
 *
 * Baseline measured in the same run ("provider floor"): the same N posts sent straight to a fresh
 * simulator by one process through the same provider adapter and the same concurrency, without database,
 * queue or engine; its lateness is what the machine gives for the platform calls alone.
 * Where the time goes: the worker's job and provider-call durations (its metrics) split a publish into
 * the platform call and the rest (claim, outcome write, slot), and pg-boss fetch delay is read from its
 * job table (started_on - due time).
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:publish
 *      (SIZES=1000,10000 WORKERS=1,2 by default; FLOOR=0 skips the baseline; BENCH_WORKER_NODE_ARGS,
 *      FLOOR_NODE_ARGS and SIM_NODE_ARGS, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof', go to the worker, floor
 *      and simulator processes)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { ensurePublishQueues, PUBLISH_QUEUE, QUEUE_DEFS } from '../src/modules/publishing/publish-queue.js';
import { openPostgres, txSql } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { newId } from '../src/platform/ids.js';
import { createJobQueue } from '../src/platform/queue/job-queue.js';
import { META_SANDBOX_APP, startMetaSimulator } from '../src/sandbox/simulators/meta.simulator.js';
import { freshPostgres } from '../test/support/harness.js';
import { metaPageTokens } from '../test/support/simulators.js';
import { serverCpuSeconds, serverWal } from './support/pg-cpu.js';
import { bundleServiceCli } from './support/service-bundle.js';
import { percentile as pct, sleep } from './support/stats.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const BASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SIZES = (process.env.SIZES ?? '1000,10000').split(',').map(Number);
const WORKERS = (process.env.WORKERS ?? '1,2').split(',').map(Number);
const ORGS = 50;
const FLOOR = process.env.FLOOR !== '0';

/* ---------------------------------------------------------------- simulator child */

async function simChild() {
  const sim = await startMetaSimulator({ containerDelayMs: 0 });
  const s = sim.state;
  process.send!({
    kind: 'ready',
    baseUrls: sim.baseUrls.facebook_page,
    pages: [s.seed.pageId, s.seed.secondPageId],
    tokens: metaPageTokens(s, [s.seed.pageId, s.seed.secondPageId]),
  });
  process.on('message', (m: { kind: string }) => {
    if (m.kind === 'count') process.send!({ kind: 'count', count: sim.ledger.posts.length });
    if (m.kind === 'receipts') process.send!({ kind: 'receipts', receipts: sim.ledger.posts.map((p) => [p.text, p.at]) });
  });
}

/* ---------------------------------------------------------------- provider floor child */

/** Publishes N texts through the Facebook Page adapter at `due` with `concurrency` calls in flight. */
async function floorChild() {
  const { loadConfig } = await import('../src/config.js');
  const { providerRegistryFromConfig } = await import('../src/main/provider-configs.js');
  const registry = providerRegistryFromConfig(loadConfig(process.env));
  const provider = registry.get('facebook_page');
  process.once('message', async (m: { n: number; due: number; concurrency: number; pages: string[]; tokens: string[] }) => {
    await sleep(Math.max(0, m.due - Date.now()));
    let next = 0;
    await Promise.all(
      Array.from({ length: m.concurrency }, async () => {
        for (let i = next++; i < m.n; i = next++) {
          const p = i % m.pages.length;
          await provider.publish(
            { accessToken: m.tokens[p]!, externalAccountId: m.pages[p]!, channelSettings: {} },
            { text: `floor ${i}`, media: [], settings: {}, idempotencyKey: `floor-${i}` },
          );
        }
      }),
    );
    const cpu = process.cpuUsage();
    process.send!({ kind: 'done', cpuMs: (cpu.user + cpu.system) / 1000 });
  });
  process.send!({ kind: 'ready' });
}

async function floorScenario(n: number, concurrency: number, env: (sim: Sim) => NodeJS.ProcessEnv) {
  const sim = await startSim();
  const child = spawn(
    process.execPath,
    [...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', SELF, '--floor'],
    {
      cwd: ROOT,
      env: env(sim),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  try {
    await new Promise((resolve) => child.once('message', resolve));
    const due = Date.now() + 1000;
    const done = new Promise<{ cpuMs: number }>((resolve) => child.once('message', resolve as never));
    const clientCpu0 = processCpuSeconds(child.pid);
    const simCpu0 = processCpuSeconds(sim.child.pid);
    child.send({ n, due, concurrency, pages: sim.pages, tokens: sim.tokens });
    await done;
    const clientCpu = processCpuSeconds(child.pid) - clientCpu0;
    const simCpu = processCpuSeconds(sim.child.pid) - simCpu0;
    const { receipts } = await sim.ask<{ receipts: Array<[string, number]> }>('receipts');
    const late = receipts.map(([, at]) => at - due).sort((a, b) => a - b);
    return {
      received: receipts.length,
      p50: pct(late, 50),
      p99: pct(late, 99),
      max: late.at(-1) ?? 0,
      clientCpuMs: (clientCpu * 1000) / Math.max(1, receipts.length),
      simCpuMs: (simCpu * 1000) / Math.max(1, receipts.length),
    };
  } finally {
    child.kill('SIGTERM');
    sim.child.kill('SIGTERM');
  }
}

/* ---------------------------------------------------------------- helpers */

interface Sim {
  child: ChildProcess;
  baseUrls: { apiBaseUrl: string; authBaseUrl: string; uploadBaseUrl: string };
  pages: string[];
  tokens: string[];
  ask<T>(kind: string): Promise<T>;
}

async function startSim(): Promise<Sim> {
  const child = spawn(
    process.execPath,
    [...(process.env.SIM_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', SELF, '--sim'],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const ready = await new Promise<{ baseUrls: Sim['baseUrls']; pages: string[]; tokens: string[] }>((resolve) =>
    child.once('message', resolve as never),
  );
  return {
    child,
    ...ready,
    ask: (kind) =>
      new Promise((resolve) => {
        const on = (m: { kind: string }) => {
          if (m.kind !== kind) return;
          child.off('message', on);
          resolve(m as never);
        };
        child.on('message', on);
        child.send({ kind });
      }),
  };
}

/** A database of its own for the run, dropped at the end. */
const freshDatabase = () => freshPostgres(BASE_URL);

const INTERNAL_TOKEN = randomBytes(24).toString('hex');

/** The environment of a worker (and of the floor process) talking to this simulator. */
function workerEnv(sim: Sim): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SERVICE_LOG_LEVEL: 'warn',
    SERVICE_DATA_DIR: `/tmp/bench-publish-${randomBytes(4).toString('hex')}`,
    SERVICE_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
    SERVICE_INTERNAL_TOKEN: INTERNAL_TOKEN,
    SERVICE_CHANNEL_TOKEN_ENV_REFS: sim.tokens.map((t, i) => `PAGE${i + 1}=${t}`).join(','),
    SERVICE_FACEBOOK_PAGE_CLIENT_ID: META_SANDBOX_APP.clientId,
    SERVICE_FACEBOOK_PAGE_CLIENT_SECRET: META_SANDBOX_APP.clientSecret,
    SERVICE_FACEBOOK_PAGE_API_BASE_URL: sim.baseUrls.apiBaseUrl,
    SERVICE_FACEBOOK_PAGE_AUTH_BASE_URL: sim.baseUrls.authBaseUrl,
    SERVICE_FACEBOOK_PAGE_UPLOAD_BASE_URL: sim.baseUrls.uploadBaseUrl,
  };
}

/** Sum and count of a histogram (all label sets matching `labels`) from a worker's metrics. */
async function histogram(port: number, name: string, labels: string): Promise<{ sum: number; count: number }> {
  const out = { sum: 0, count: 0 };
  try {
    const text = await (
      await fetch(`http://127.0.0.1:${port}/v1/internal/metrics`, { headers: { 'x-service-internal-token': INTERNAL_TOKEN } })
    ).text();
    for (const line of text.split('\n')) {
      const m = /^(\w+)_(sum|count)\{([^}]*)\} ([\d.eE+-]+)$/.exec(line);
      if (!m || m[1] !== name || !m[3]!.includes(labels)) continue;
      out[m[2] as 'sum' | 'count'] += Number(m[4]);
    }
  } catch {
    /* a worker without metrics: the split is not printed */
  }
  return out;
}

/** A counter's value (all label sets) from a worker's metrics. */
async function counterValue(port: number, name: string): Promise<number> {
  try {
    const text = await (
      await fetch(`http://127.0.0.1:${port}/v1/internal/metrics`, { headers: { 'x-service-internal-token': INTERNAL_TOKEN } })
    ).text();
    let total = 0;
    for (const line of text.split('\n')) {
      const m = /^(\w+)(?:\{[^}]*\})? ([\d.eE+-]+)$/.exec(line);
      if (m && m[1] === name) total += Number(m[2]);
    }
    return total;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by one process (from /proc; 0 when it is gone). */
function processCpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/* ---------------------------------------------------------------- one scenario */

async function scenario(n: number, workers: number) {
  const sim = await startSim();
  const fresh = await freshDatabase();
  const database = openPostgres(fresh.url, 8);
  const procs: ChildProcess[] = [];
  try {
    await migrateToLatest(database.db);
    const queue = createJobQueue(database, { supervise: false, schedule: false });
    await queue.start();
    await ensurePublishQueues(queue);
    const db = database.db;
    const now = new Date();
    const channels: Array<{ id: string; org: string; brand: string }> = [];
    for (let o = 0; o < ORGS; o++) {
      const org = newId('org');
      const brand = newId('brd');
      await db
        .insertInto('organizations')
        .values({ id: org, name: `Bench ${o}`, created_at: now, updated_at: now })
        .execute();
      await db
        .insertInto('brands')
        .values({
          id: brand,
          organization_id: org,
          name: `Bench ${o}`,
          slug: `bench-${o}`,
          timezone: 'UTC',
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (let p = 0; p < sim.pages.length; p++) {
        const id = newId('cha');
        await db
          .insertInto('channel_accounts')
          .values({
            id,
            organization_id: org,
            brand_id: brand,
            platform: 'facebook_page',
            external_account_id: sim.pages[p]!,
            display_name: 'Bench page',
            state: 'connected',
            scopes: [],
            access_token_ref: `env:PAGE${p + 1}`,
            additional_settings: '{}',
            created_at: now,
            updated_at: now,
          })
          .execute();
        channels.push({ id, org, brand });
      }
    }
    const metricsPorts = Array.from({ length: workers }, () => 20000 + Math.floor(Math.random() * 20000));
    const env = { ...workerEnv(sim), DATABASE_URL: fresh.url };
    // the production bundle (npm run build), not the TypeScript loader
    const WORKER_CLI = await bundleServiceCli('bench-publish');
    // workers start one after the other so that every worker is polling before the targets fall due
    for (let w = 0; w < workers; w++) {
      procs.push(
        spawn(process.execPath, [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), WORKER_CLI, 'worker'], {
          cwd: ROOT,
          env: { ...env, SERVICE_WORKER_METRICS_PORT: String(metricsPorts[w]) },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
      for (let i = 0; ; i++) {
        const beats = await db.selectFrom('worker_heartbeats').select('worker_id').execute();
        if (beats.length >= w + 1) break;
        if (i > 600) throw new Error('workers did not start');
        await sleep(100);
      }
      await sleep(1500); // let the worker register its queues and start polling
    }

    // N targets due at the same second, rows and worker jobs inserted in the same transactions
    // due once every row is in (inserting 10,000 takes seconds on a loaded machine)
    const due = new Date(Math.ceil((Date.now() + 3000 + n) / 1000) * 1000);
    const CHUNK = 500;
    for (let start = 0; start < n; start += CHUNK) {
      // pg-boss maintenance in the workers may deadlock with a bulk insert: retry the chunk
      for (let attempt = 1; ; attempt++) {
        try {
          await insertChunk(start);
          break;
        } catch (err) {
          if (attempt >= 3 || !/deadlock/.test(String(err))) throw err;
        }
      }
    }
    async function insertChunk(start: number) {
      await db.transaction().execute(async (tx) => {
        const jobs = [];
        const targets = [];
        const pgbossJobs = [];
        for (let i = start; i < Math.min(n, start + CHUNK); i++) {
          const ch = channels[i % channels.length]!;
          const jobId = newId('job');
          const targetId = newId('tgt');
          const text = `bench ${i}`;
          jobs.push({
            id: jobId,
            organization_id: ch.org,
            brand_id: ch.brand,
            text,
            media: '[]',
            status: 'scheduled',
            scheduled_at: due,
            created_at: now,
            updated_at: now,
          });
          targets.push({
            id: targetId,
            organization_id: ch.org,
            job_id: jobId,
            brand_id: ch.brand,
            channel_account_id: ch.id,
            platform: 'facebook_page',
            position: 0,
            text,
            settings: '{}',
            state: 'scheduled',
            scheduled_at: due,
            next_attempt_at: due,
            last_error: 'null',
            first_comment: 'null',
            first_comment_error: 'null',
            created_at: now,
            updated_at: now,
          });
          pgbossJobs.push({
            name: PUBLISH_QUEUE,
            data: { targetId, organizationId: ch.org, version: 1, step: 'publish', platform: 'facebook_page', channelAccountId: ch.id },
            startAfter: due,
            ...QUEUE_DEFS[PUBLISH_QUEUE],
          });
        }
        await tx.insertInto('publish_jobs').values(jobs).execute();
        await tx.insertInto('publish_targets').values(targets).execute();
        await queue.boss.insert(pgbossJobs, { db: txSql(tx) } as never);
      });
    }
    const scheduledBy = Date.now();
    let workerCpu0 = 0;
    for (const port of metricsPorts) workerCpu0 += await counterValue(port, 'process_cpu_seconds_total');
    const pgCpu0 = await serverCpuSeconds(db);
    const wal0 = await serverWal(db);
    const simCpu0 = processCpuSeconds(sim.child.pid);
    if (scheduledBy > due.getTime()) console.warn(`  (scheduling took until ${scheduledBy - due.getTime()} ms after the due time)`);
    const deadline = due.getTime() + 60_000 + n * 20;
    for (;;) {
      const { count } = await sim.ask<{ count: number }>('count');
      if (count >= n || Date.now() > deadline) break;
      await sleep(200);
    }
    const dead = procs.filter((p) => p.exitCode !== null || p.signalCode !== null).length;
    if (dead > 0) console.warn(`  ${dead} worker process(es) exited during the run`);
    const { receipts } = await sim.ask<{ receipts: Array<[string, number]> }>('receipts');
    const late = receipts.map(([, at]) => at - due.getTime()).sort((a, b) => a - b);
    const last = late.at(-1) ?? 0;
    const duplicates = receipts.length - new Set(receipts.map(([t]) => t)).size;
    // the simulator has every post; the last outcomes may still be on their way to the database (a burst's
    // outcomes are written in full after its calls, up to the engine's longest hold of 30 s)
    for (let i = 0; i < 300; i++) {
      const inFlight = await db.selectFrom('publish_targets').select('id').where('state', '=', 'publishing').limit(1).execute();
      if (inFlight.length === 0) break;
      await sleep(100);
    }
    const states = await db
      .selectFrom('publish_targets')
      .select(['state', db.fn.countAll<number>().as('n')])
      .groupBy('state')
      .execute();
    const problems = await db
      .selectFrom('publish_targets')
      .select(['state', 'last_error'])
      .where('state', '!=', 'published')
      .limit(3)
      .execute();
    if (problems.length > 0) console.log('  not published, e.g.:', JSON.stringify(problems));
    // every publish job beyond the first per target was a deferral (no policy slot free) or a retry
    const sent = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name = ${PUBLISH_QUEUE}`.execute(db);
    let workerCpu = -workerCpu0;
    for (const port of metricsPorts) workerCpu += await counterValue(port, 'process_cpu_seconds_total');
    const pgCpu = (await serverCpuSeconds(db)) - pgCpu0;
    const wal1 = await serverWal(db);
    const simCpu = processCpuSeconds(sim.child.pid) - simCpu0;
    // pg-boss: how long after the due time the worker fetched the jobs
    const fetched = await sql<{ p50: number; p99: number }>`
			select percentile_cont(0.5) within group (order by ms) as p50, percentile_cont(0.99) within group (order by ms) as p99
			from (select extract(epoch from (started_on - ${due}::timestamptz)) * 1000 as ms from pgboss.job
				where name = ${PUBLISH_QUEUE} and started_on is not null) s`.execute(db);
    const split = { job: { sum: 0, count: 0 }, call: { sum: 0, count: 0 } };
    for (const port of metricsPorts) {
      const job = await histogram(port, 'service_api_job_duration_seconds', `queue="${PUBLISH_QUEUE}"`);
      const call = await histogram(port, 'service_api_provider_call_duration_seconds', 'operation="publish"');
      split.job.sum += job.sum;
      split.job.count += job.count;
      split.call.sum += call.sum;
      split.call.count += call.count;
    }
    await queue.stop({ graceful: false, timeoutMs: 1000 });
    return {
      n,
      workers,
      received: receipts.length,
      duplicates,
      throughput: receipts.length / Math.max(0.001, last / 1000),
      p50: pct(late, 50),
      p99: pct(late, 99),
      max: last,
      requeued: Number(sent.rows[0]?.n ?? 0) - n,
      fetchP50: Math.round(Number(fetched.rows[0]?.p50 ?? 0)),
      fetchP99: Math.round(Number(fetched.rows[0]?.p99 ?? 0)),
      workerCpuMs: (workerCpu * 1000) / Math.max(1, receipts.length),
      pgCpuMs: (pgCpu * 1000) / Math.max(1, receipts.length),
      walRecords: (wal1.records - wal0.records) / Math.max(1, receipts.length),
      walBytes: (wal1.bytes - wal0.bytes) / Math.max(1, receipts.length),
      simCpuMs: (simCpu * 1000) / Math.max(1, receipts.length),
      jobMs: split.job.count ? (split.job.sum / split.job.count) * 1000 : null,
      callMs: split.call.count ? (split.call.sum / split.call.count) * 1000 : null,
      states: Object.fromEntries(states.map((s) => [s.state, Number(s.n)])),
    };
  } finally {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.once('exit', r)) : null)));
    sim.child.kill('SIGTERM');
    await database.close();
    await fresh.drop().catch(() => undefined);
  }
}

/* ---------------------------------------------------------------- main */

async function main() {
  // children end on SIGTERM through exit(), so a --cpu-prof profile is written (FLOOR_NODE_ARGS, SIM_NODE_ARGS)
  if (process.argv.includes('--sim') || process.argv.includes('--floor')) process.once('SIGTERM', () => process.exit(0));
  if (process.argv.includes('--sim')) return simChild();
  if (process.argv.includes('--floor')) return floorChild();
  if (process.env.FLOOR_ONLY) {
    // the provider floor alone, at FLOOR_ONLY calls in flight (comma-separated figures), for each size
    for (const n of SIZES)
      for (const c of process.env.FLOOR_ONLY.split(',').map(Number)) {
        const f = await floorScenario(n, c, workerEnv);
        console.log(
          `floor N=${n} in flight=${c}: lateness p50=${f.p50} ms p99=${f.p99} ms max=${f.max} ms (received ${f.received}); CPU per post: client ${f.clientCpuMs.toFixed(2)} ms, simulator ${f.simCpuMs.toFixed(2)} ms`,
        );
      }
    process.exit(0);
  }
  console.log(`publish benchmark on ${BASE_URL.replace(/\/\/[^@]*@/, '//')} (sizes ${SIZES.join(', ')}; workers ${WORKERS.join(', ')})`);
  const results = [];
  for (const n of SIZES) {
    for (const w of WORKERS) {
      const r = await scenario(n, w);
      results.push(r);
      console.log(
        `N=${String(n).padStart(6)}  workers=${w}  received=${r.received}  dup=${r.duplicates}  throughput=${r.throughput.toFixed(0).padStart(5)} targets/s  lateness p50=${r.p50} ms p99=${r.p99} ms max=${r.max} ms  requeued=${r.requeued}  states=${JSON.stringify(r.states)}`,
      );
      console.log(
        `          CPU per published target (load-independent cost): worker ${r.workerCpuMs.toFixed(2)} ms, PostgreSQL server ${r.pgCpuMs.toFixed(2)} ms, simulator ${r.simCpuMs.toFixed(2)} ms`,
      );
      console.log(
        `          PostgreSQL write-ahead log per published target: ${r.walRecords.toFixed(1)} records, ${r.walBytes.toFixed(0)} bytes`,
      );
      if (r.jobMs !== null && r.callMs !== null)
        console.log(
          `          where the time goes: pg-boss fetch relative to the due time p50=${r.fetchP50} ms p99=${r.fetchP99} ms (negative: fetched ahead); per publish job ${r.jobMs.toFixed(1)} ms = platform call ${r.callMs.toFixed(1)} ms + claim, wait for a call permit and slot, outcome write ${(r.jobMs - r.callMs).toFixed(1)} ms`,
        );
      if (FLOOR) {
        const concurrency = Number(process.env.SERVICE_PUBLISH_WORKER_CONCURRENCY ?? 64) * w;
        const f = await floorScenario(n, concurrency, workerEnv);
        console.log(
          `          provider floor (same run, same ${n} posts straight to the simulator, ${concurrency} in flight, no database or queue): lateness p50=${f.p50} ms p99=${f.p99} ms max=${f.max} ms (received ${f.received}); engine p99 / floor p99 = ${(r.p99 / Math.max(1, f.p99)).toFixed(1)}x; CPU per post: client ${f.clientCpuMs.toFixed(2)} ms, simulator ${f.simCpuMs.toFixed(2)} ms`,
        );
      }
    }
  }
  for (const n of SIZES) {
    const one = results.find((r) => r.n === n && r.workers === 1);
    const two = results.find((r) => r.n === n && r.workers === 2);
    if (one && two)
      console.log(`N=${n}: two workers / one worker throughput = ${(two.throughput / one.throughput).toFixed(2)}x (target >= 1.6x)`);
    if (one && n === 1000)
      console.log(`N=1000, one worker: p99 lateness ${one.p99} ms (target < 2000 ms) -> ${one.p99 < 2000 ? 'met' : 'NOT met'}`);
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
