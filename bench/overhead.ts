/**
 * npm run bench:overhead — what the service's own request handling costs over a bare Fastify route running
 * the same work, measured without the network: GET /v1/brands (API key, scope, rate limit, validation,
 * serializer) against the same brand query, and the tool API's UTM build of 100 links (tool key, limits,
 * quota) against the same builder. Both sides run in one process (bench/overhead-run.ts, bundled like the
 * production build) and are driven through Fastify's `inject` in alternating rounds; the figure is the CPU a
 * request (all threads of the process) and the difference of the two.
 *
 * A diagnostic beside bench:api and bench:tools, not a target of its own: over HTTP on a two-core host the
 * load generator and the server share the cores, and their ratios move by tens of points between runs of
 * the same code; here the load generator's share and the sockets are out of the figure, so a change of a few
 * µs in the route's path shows. The rounds are short and paired, one of each side back to back, and the figure
 * is the median over the pairs (bench/overhead-run.ts). PAIRS (400) and PER_ROUND (40) size the run,
 * BENCH_CASES=brands,floor,utm,qr picks the comparisons (brands,utm by default; floor: the brand list's features
 * written as plain code, against the bare route and against the service); DATABASE_URL selects
 * PostgreSQL, the embedded database otherwise; BENCH_NODE_ARGS (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof)
 * go to the measured process.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { bundleWithQrWorker } from '../scripts/build-service.js';

const outdir = path.resolve(import.meta.dirname, '../dist/bench-overhead');
await bundleWithQrWorker(outdir, '', { 'overhead-run': path.resolve(import.meta.dirname, 'overhead-run.ts') });
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
const child = spawn(process.execPath, [...nodeArgs, path.join(outdir, 'overhead-run.js')], { stdio: 'inherit' });
const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
process.exit(code);
