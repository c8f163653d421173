/**
 * Child process of bench/api-hot-path.ts: starts the real service (API + worker, embedded PGlite or
 * DATABASE_URL) and, in the same process, a bare Fastify route that runs the same brand query without
 * authentication or rate limiting. Reports both ports and the credentials over IPC.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { startRuntime } from '../src/main/runtime.js';
import { BrandsService } from '../src/modules/brands/brands.service.js';
import { IdentityService } from '../src/modules/identity/identity.service.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'service-api-bench-'));
const config = loadConfig({
  ...process.env,
  SERVICE_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  SERVICE_LOG_LEVEL: 'warn',
  // a high limit so the benchmark measures the work of the limiter, not 429 answers
  SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '100000000',
});
// production shape with DATABASE_URL (an API-only process); the embedded default runs API + worker
const runtime = await startRuntime(config, config.embedded ? 'all' : 'api');
// silence per-request logs in both servers alike
const db = runtime.deps.database.db;
const boot = await new IdentityService(db).bootstrap(
  { organization: 'Bench', email: `bench-${Date.now()}@example.test`, password: 'correct horse' },
  new Date(),
);
const brands = new BrandsService(db);
for (let i = 0; i < 20; i++) await brands.create(boot.organizationId, { name: `Brand ${i}` }, new Date());

// the schemas no request has used yet are compiled in the background after the server listens: the
// measured rounds start once that is done (it would otherwise share the CPU with the first round)
const failures = (await runtime.app?.compileRemainingSchemas()) ?? [];
if (failures.length > 0) throw new Error(`route schemas that do not compile: ${failures.map((f) => f.route).join(', ')}`);

const bare = Fastify({ logger: false });
bare.get('/baseline/brands', async () => brands.list(boot.organizationId, {}));
const bareAddress = await bare.listen({ port: 0, host: '127.0.0.1' });

process.send!({ ours: runtime.address, baseline: bareAddress, apiKey: boot.apiKey });
process.on('message', async (m) => {
  if (m === 'mark') {
    if (process.execArgv.includes('--cpu-prof')) process.stderr.write(`mark ${process.hrtime.bigint() / 1000n}\n`);
    return;
  }
  if (m === 'stop') {
    await bare.close();
    await runtime.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
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
