/**
 * npm run bench:scale — the cost of the dashboard's and integrators' reads and of the worker's scans as
 * the data grows, on PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test).
 *
 * Two databases of the same shape are seeded once (bench/scale/seed.ts) and reused: small (about
 * 10,000 rows per big table) and large (1,000,000 publish targets over 300,000 jobs in one organization
 * among 1,000 small ones, 1,000,000 comments, 5,000,000 webhook attempts, ...). `--scale=0.1` (or
 * BENCH_SCALE=0.1) shrinks the large set for a quick run. The API runs in process against each database
 * (the same composition as the server); every operation is sampled RUNS times (default 30) after warm-up.
 *
 * Prints p50/p99 of each operation on both sets, the large/small ratio, and the planner's verdict on the
 * large set: each statement the operation ran (captured from the service's Kysely) is EXPLAINed with its
 * parameters, and a sequential scan of a big table is reported. Targets: large/small <= 2x, a read
 * route's p99 < 50 ms, no sequential scan of a big table.
 */
import pg from 'pg';
import { benchApi, type Dataset, prepareDataset } from './scale/datasets.js';
import { describeVerdict, explain, openCapturedPostgres, StatementCapture, type Verdict } from './scale/plans.js';
import { pruneUnderLoad } from './scale/prune-under-load.js';
import { scenarios } from './scale/scenarios.js';
import { percentile } from './support/stats.js';

const BASE = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const arg = process.argv.find((a) => a.startsWith('--scale='));
const FACTOR = Number(arg ? arg.slice('--scale='.length) : (process.env.BENCH_SCALE ?? 1));
const RUNS = Number(process.env.RUNS ?? 30);
const WARMUP = 3;
const ONLY = process.env.BENCH_SCALE_ONLY ? new RegExp(process.env.BENCH_SCALE_ONLY, 'i') : null;
const log = (s: string) => console.log(s);

interface Figures {
  p50: number;
  p99: number;
  verdict: Verdict | null;
}

async function measure(ds: Dataset, explainPlans: boolean): Promise<Map<string, Figures & { kind: string }>> {
  const capture = new StatementCapture();
  const database = openCapturedPostgres(ds.url, 10, capture);
  const { ctx, auth } = await benchApi(database, ds.url, ds.organizationId);
  const client = new pg.Client({ connectionString: ds.url });
  await client.connect();
  const pool = new pg.Pool({ connectionString: ds.url, max: 1 });
  const out = new Map<string, Figures & { kind: string }>();
  try {
    for (const s of await scenarios(ctx, client, ds, auth)) {
      if (ONLY && !ONLY.test(s.name)) continue;
      for (let i = 0; i < WARMUP; i++) await s.run(i);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await s.run(WARMUP + i);
        times.push(performance.now() - t0);
      }
      let verdict: Verdict | null = null;
      if (explainPlans) {
        const statements = await capture.during(() => s.run(WARMUP + RUNS));
        verdict = await explain(pool, statements);
      }
      out.set(s.name, { kind: s.kind, p50: percentile(times, 50), p99: percentile(times, 99), verdict });
      log(
        `  ${ds.name}: ${s.name}: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms${verdict ? `; ${describeVerdict(verdict)}` : ''}`,
      );
    }
  } finally {
    await pool.end();
    await client.end();
    await ctx.close();
    await database.close();
  }
  return out;
}

const small = await prepareDataset(BASE, 'bench_scale_small', 0.01, log);
if (process.env.BENCH_SCALE_SMALL_ONLY === '1') {
  // a check of the scenarios on the small set alone
  await measure(small, true);
  process.exit(0);
}
// a shrunk large set has its own database, so a quick run leaves the full one seeded
const large = await prepareDataset(
  BASE,
  FACTOR === 1 ? 'bench_scale_large' : `bench_scale_large_${String(FACTOR).replace('.', '_')}`,
  FACTOR,
  log,
);
if (process.env.BENCH_SCALE_SEED_ONLY === '1') process.exit(0);
if (process.env.BENCH_SCALE_ONLY === 'prune') {
  await pruneUnderLoad(BASE, large, log);
  process.exit(0);
}
log(`measuring (${RUNS} samples each after ${WARMUP} warm-up runs; the API in process on PostgreSQL)`);
const s = await measure(small, true);
const l = await measure(large, true);

const pad = (x: string, n: number) => x.padEnd(n);
const f1 = (n: number) => n.toFixed(1).padStart(7);
const rows: string[] = [];
rows.push(`\nCost as the data grows — small (factor 0.01) vs large (factor ${FACTOR}); ms; ratio = large p50 / small p50`);
rows.push(
  `${pad('operation', 64)} ${'small p50'.padStart(9)} ${'p99'.padStart(7)} ${'large p50'.padStart(9)} ${'p99'.padStart(7)} ${'ratio'.padStart(6)}  plan on large`,
);
let misses = 0;
for (const [name, lf] of l) {
  const sf = s.get(name);
  if (!sf) continue;
  const ratio = lf.p50 / sf.p50;
  const planOk = !lf.verdict || lf.verdict.seqScans.length === 0;
  const over = (lf.kind !== 'page of 100' && ratio > 2) || (lf.kind !== 'worker' && lf.p99 > 50) || !planOk;
  if (over) misses++;
  rows.push(
    `${pad(name, 64)} ${f1(sf.p50).padStart(9)} ${f1(sf.p99)} ${f1(lf.p50).padStart(9)} ${f1(lf.p99)} ${`${ratio.toFixed(1)}x`.padStart(6)}  ${describeVerdict(lf.verdict)}${over ? '  <- over target' : ''}`,
  );
}
rows.push(
  `targets: large/small <= 2x (a page both sets fill), read route p99 < 50 ms, no sequential scan of a big table: ${misses === 0 ? 'all met' : `${misses} missed`}`,
);
log(rows.join('\n'));
// the prune of a year of rows under load, on a copy of the large set (BENCH_SCALE_ONLY=prune: this alone)
if (!ONLY || ONLY.test('prune')) await pruneUnderLoad(BASE, large, log);
