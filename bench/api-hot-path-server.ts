/**
 * Child process of bench/api-hot-path.ts: starts the real service (API + worker, embedded PGlite or
 * DATABASE_URL) and, in the same process, a bare Fastify route that runs the same brand query without
 * authentication or rate limiting. Reports both ports and the credentials over IPC.
 */
import Fastify from 'fastify';
import { startBrandsFloor } from './support/brands-floor.js';
import { startBrandsBenchService } from './support/brands-service.js';

// production shape with DATABASE_URL (an API-only process); the embedded default runs API + worker
const service = await startBrandsBenchService((embedded) => (embedded ? 'all' : 'api'));
const { runtime, brands, organizationId, apiKey } = service;

// the schemas no request has used yet are compiled in the background after the server listens: the
// measured rounds start once that is done (it would otherwise share the CPU with the first round)
const failures = (await runtime.app?.compileRemainingSchemas()) ?? [];
if (failures.length > 0) throw new Error(`route schemas that do not compile: ${failures.map((f) => f.route).join(', ')}`);

const bare = Fastify({ logger: false });
bare.get('/baseline/brands', async () => brands.list(organizationId, {}));
const bareAddress = await bare.listen({ port: 0, host: '127.0.0.1' });

// BENCH_FLOOR=1: the same features written as plain code (bench/support/brands-floor.ts) on a port of its own
const floor = process.env.BENCH_FLOOR === '1' ? await startBrandsFloor(brands, organizationId, apiKey) : null;
const floorAddress = floor ? await floor.listen({ port: 0, host: '127.0.0.1' }) : null;

process.send!({ ours: runtime.address, baseline: bareAddress, floor: floorAddress, apiKey });
process.on('message', async (m) => {
  if (m === 'mark') {
    if (process.execArgv.includes('--cpu-prof')) process.stderr.write(`mark ${process.hrtime.bigint() / 1000n}\n`);
    return;
  }
  if (m === 'stop') {
    await bare.close();
    await floor?.close();
    await service.stop();
    process.exit(0);
  }
});
if (process.env.BENCH_MEMORY_TRACE) {
  setInterval(() => {
    const m = process.memoryUsage();
    console.error(
      `rss ${(m.rss / 1048576).toFixed(0)} heapTotal ${(m.heapTotal / 1048576).toFixed(0)} heapUsed ${(m.heapUsed / 1048576).toFixed(0)} external ${(m.external / 1048576).toFixed(0)}`,
    );
  }, 2000).unref();
}
