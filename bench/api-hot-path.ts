/**
 * npm run bench:api — authenticated GET /v1/brands (auth, scope check, rate limit, validation,
 * serialization) against a bare Fastify route running the same query, in the same server process,
 * same run. Prints requests/s and p99 of both, the ratio, and the server process's peak RSS.
 * Targets: ours >= 75% of the baseline's throughput; RSS < 200 MB.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { build } from 'esbuild';
import { externalDependencies } from '../scripts/external-dependencies.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

// The server runs as plain JavaScript, bundled like the production build (npm run build), so the
// figures are those of a production process rather than of the TypeScript loader.
const serverBundle = path.resolve(import.meta.dirname, '../dist/bench/api-hot-path-server.js');
await build({
  entryPoints: [path.resolve(import.meta.dirname, 'api-hot-path-server.ts')],
  outfile: serverBundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [externalDependencies],
  logLevel: 'warning',
});
// the production setting documented in the README; BENCH_NODE_FLAGS='' measures V8's default heap sizing
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '--max-old-space-size=128 --max-semi-space-size=2').split(' ').filter(Boolean);
const child = fork(serverBundle, [], { execArgv: nodeFlags, stdio: 'inherit' });
const info = await new Promise<{ ours: string; baseline: string; apiKey: string }>((resolve) => child.once('message', resolve as never));

let peakRss = 0;
const rssTimer = setInterval(() => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
    peakRss = Math.max(peakRss, kb * 1024);
  } catch {}
}, 100);

async function run(url: string, headers: Record<string, string>, seconds: number) {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

const oursUrl = `${info.ours}/v1/brands`;
const baseUrl = `${info.baseline}/baseline/brands`;
const auth = { authorization: `Bearer ${info.apiKey}` };
// warm both paths (JIT, caches), then measure alternately
await run(baseUrl, {}, 2);
await run(oursUrl, auth, 2);
const baseline = await run(baseUrl, {}, DURATION);
const ours = await run(oursUrl, auth, DURATION);
clearInterval(rssTimer);

const ratio = ours.rps / baseline.rps;
console.log(
  `database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; ${CONNECTIONS} connections, ${DURATION} s each; server node flags: ${nodeFlags.join(' ') || '(none)'}`,
);
console.log(`baseline (bare route, same query): ${baseline.rps.toFixed(0)} req/s, p99 ${baseline.p99} ms`);
console.log(`GET /v1/brands (auth + rate limit):  ${ours.rps.toFixed(0)} req/s, p99 ${ours.p99} ms`);
console.log(`ratio: ${(ratio * 100).toFixed(1)}% of baseline (target >= 75%) ${ratio >= 0.75 ? 'OK' : 'MISSED'}`);
console.log(
  `${process.env.DATABASE_URL ? 'API process (PostgreSQL mode)' : 'service process (API + worker + embedded PGlite engine)'} peak RSS: ${(peakRss / 1048576).toFixed(0)} MB (target < 200 MB) ${peakRss < 200 * 1048576 ? 'OK' : 'MISSED'}`,
);
child.send('stop');
