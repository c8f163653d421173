/**
 * npm run bench:api — authenticated GET /v1/brands (auth, scope check, rate limit, validation,
 * serialization) against a bare Fastify route running the same query, in the same server process,
 * same run. Prints requests/s and p99 of both, the ratio, and the server process's peak RSS.
 * Targets: ours >= 95% of the baseline's throughput; peak RSS < 160 MB. BENCH_FLOOR=1 also measures the same
 * features written as plain Fastify code (bench/support/brands-floor.ts) against the bare route, in pairs of rounds.
 *
 * The two are measured in pairs of rounds (BENCH_ROUNDS pairs of BENCH_SECONDS a side, after a warm-up of
 * both; which side goes first alternates), so load that changes on the host during the run hits both alike.
 * The figures are the means, and the median with quartiles of the pairs' ratios: on a shared two-core host
 * one pair's ratio moves by tens of points, the median of a dozen pairs by a few.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { build } from 'esbuild';
import { SERVICE_BUNDLE_OPTIONS } from '../scripts/bundle-options.js';
import { median, percentile } from './support/stats.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const TARGET_RATIO = 0.95;
const TARGET_RSS_MB = 160;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

// The server runs as plain JavaScript, bundled like the production build (npm run build), so the
// figures are those of a production process rather than of the TypeScript loader.
const serverDir = path.resolve(import.meta.dirname, '../dist/bench-api');
fs.rmSync(serverDir, { recursive: true, force: true });
await build({
  entryPoints: { 'api-hot-path-server': path.resolve(import.meta.dirname, 'api-hot-path-server.ts') },
  outdir: serverDir,
  ...SERVICE_BUNDLE_OPTIONS,
});
const serverBundle = path.join(serverDir, 'api-hot-path-server.js');
// the production setting documented in the README; BENCH_NODE_FLAGS='' measures V8's default heap sizing
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '--max-old-space-size=128 --max-semi-space-size=2').split(' ').filter(Boolean);
const child = fork(serverBundle, [], { execArgv: nodeFlags, stdio: 'inherit' });
const info = await new Promise<{ ours: string; baseline: string; floor: string | null; apiKey: string }>((resolve) =>
  child.once('message', resolve as never),
);

let peakRss = 0;
const rssTimer = setInterval(() => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
    peakRss = Math.max(peakRss, kb * 1024);
  } catch {}
}, 100);

/** CPU time (user + system, all threads) the server process has used so far, in ms (clock ticks of 10 ms) */
function serverCpuMs(): number {
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // after the command name: state is field 3, utime 14 and stime 15 (1-based, as in proc(5))
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function run(url: string, headers: Record<string, string>, seconds: number) {
  // with --cpu-prof in BENCH_NODE_FLAGS, the server marks each round's start and end on stderr (monotonic
  // µs, the profile's clock): warm-up rounds, then baseline and ours alternately
  child.send('mark');
  const cpuBefore = serverCpuMs();
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  const cpuMs = serverCpuMs() - cpuBefore;
  child.send('mark');
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  // CPU per request: steadier than req/s on a shared host (it does not count time spent waiting for a core)
  return { rps: r.requests.average, p99: r.latency.p99, cpuPerRequestMs: cpuMs / Math.max(1, r.requests.total) };
}

const oursUrl = `${info.ours}/v1/brands`;
const baseUrl = `${info.baseline}/baseline/brands`;
const auth = { authorization: `Bearer ${info.apiKey}` };
// warm both paths (JIT, caches), then measure alternately
await run(baseUrl, {}, 2);
await run(oursUrl, auth, 2);
type Round = Awaited<ReturnType<typeof run>>;
/** ROUNDS pairs of rounds of two sides, the side going first alternating: each side's rounds, pair by pair */
async function pairedRounds(a: () => Promise<Round>, b: () => Promise<Round>): Promise<[Round[], Round[]]> {
  const as: Round[] = [];
  const bs: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      as.push(await a());
      bs.push(await b());
    } else {
      bs.push(await b());
      as.push(await a());
    }
  }
  return [as, bs];
}
const bareRound = () => run(baseUrl, {}, DURATION);
const [baselineRounds, oursRounds] = await pairedRounds(bareRound, () => run(oursUrl, auth, DURATION));
clearInterval(rssTimer);
// BENCH_FLOOR=1: the brand list's features written as plain Fastify code (bench/support/brands-floor.ts), in pairs
// with the bare route as above (after the peak RSS is read): what the features cost over HTTP however written
const floorRatios: number[] = [];
const floorCpuRatios: number[] = [];
if (info.floor) {
  const floorUrl = `${info.floor}/brands`;
  await run(floorUrl, auth, 2);
  const [bares, plains] = await pairedRounds(bareRound, () => run(floorUrl, auth, DURATION));
  plains.forEach((plain, i) => {
    floorRatios.push(plain.rps / bares[i]!.rps);
    floorCpuRatios.push(bares[i]!.cpuPerRequestMs / plain.cpuPerRequestMs);
  });
}
/** mean req/s of the rounds; the worst round's p99 */
const merged = (rounds: typeof oursRounds) => ({
  rps: rounds.reduce((a, r) => a + r.rps, 0) / rounds.length,
  p99: Math.max(...rounds.map((r) => r.p99)),
  cpuPerRequestMs: rounds.reduce((a, r) => a + r.cpuPerRequestMs, 0) / rounds.length,
});
const baseline = merged(baselineRounds);
const ours = merged(oursRounds);

const ratio = ours.rps / baseline.rps;
/** per pair of rounds: ours / baseline requests/s, and baseline / ours CPU a request */
const pairRatios = oursRounds.map((r, i) => r.rps / (baselineRounds[i]?.rps ?? 1));
const pairCpuRatios = oursRounds.map((r, i) => (baselineRounds[i]?.cpuPerRequestMs ?? 0) / r.cpuPerRequestMs);
const spread = (xs: number[]) =>
  `median ${(median(xs) * 100).toFixed(1)}% (quartiles ${(percentile(xs, 25) * 100).toFixed(1)}-${(percentile(xs, 75) * 100).toFixed(1)}%)`;
console.log(
  `database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION} s each; server node flags: ${nodeFlags.join(' ') || '(none)'}`,
);
const cpu = (r: typeof ours) => `server CPU ${(r.cpuPerRequestMs * 1000).toFixed(0)} µs/req`;
console.log(`baseline (bare route, same query): ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms, ${cpu(baseline)}`);
console.log(`GET /v1/brands (auth + rate limit):  ${ours.rps.toFixed(0)} req/s, p99 ${ours.p99} ms, ${cpu(ours)}`);
console.log(
  `ratio: ${(ratio * 100).toFixed(1)}% of baseline (target >= ${TARGET_RATIO * 100}%) ${ratio >= TARGET_RATIO ? 'OK' : 'MISSED'}; rounds: ${pairRatios.map((x) => `${(x * 100).toFixed(0)}%`).join(' ')}; server CPU per request, baseline/ours: ${((baseline.cpuPerRequestMs / ours.cpuPerRequestMs) * 100).toFixed(1)}%`,
);
console.log(`per pair of rounds: requests/s ${spread(pairRatios)}; server CPU per request, baseline/ours ${spread(pairCpuRatios)}`);
if (info.floor)
  console.log(
    `the same features as plain code (BENCH_FLOOR), per pair of rounds with the bare route: requests/s ${spread(floorRatios)}; server CPU per request, baseline/plain ${spread(floorCpuRatios)}`,
  );
console.log(
  `${process.env.DATABASE_URL ? 'API process (PostgreSQL mode)' : 'service process (API + worker + embedded PGlite engine)'} peak RSS: ${(peakRss / 1048576).toFixed(0)} MB (target < ${TARGET_RSS_MB} MB) ${peakRss < TARGET_RSS_MB * 1048576 ? 'OK' : 'MISSED'}`,
);
child.send('stop');
