/**
 * Child process of bench/tools.ts, run as plain JavaScript bundled like the production build (npm run
 * build), so the figures are those of a production process rather than of the TypeScript loader. Starts
 * the real service (embedded database in a temp dir, same code path as `service-api api`), Max-tier tool
 * keys, and in the same process the baseline: the same builders behind a bare Fastify route. Reports the
 * ports and keys over IPC once every route schema is compiled (a server compiles the schemas no request
 * has used yet in the background after it listens; measured rounds must not share the CPU with that).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.js';
import { startRuntime } from '../src/main/runtime.js';
import { generateQr } from '../src/modules/tools/qrcode/qr-generator.js';
import { defaultQrPoolSize, QrWorkerPool } from '../src/modules/tools/qrcode/qr-worker-pool.js';
import { ToolKeysService } from '../src/modules/tools/tool-keys.service.js';
import { buildUtm } from '../src/modules/tools/utm/utm-builder.js';

export interface ToolsServerReady {
  port: number;
  barePort: number;
  keys: string[];
  qrWorkers: number;
}

const KEYS = Number(process.env.BENCH_TOOL_KEYS ?? 400);

/** The baseline: the same builders behind a plain Fastify route (default JSON parser and serializer). */
async function startBareRoutes(qrWorkers: number): Promise<{ port: number; close: () => Promise<void> }> {
  const pool = new QrWorkerPool(qrWorkers);
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.post('/utm', async (request, reply) => {
    const built = buildUtm(request.body);
    if (!built.ok) return reply.code(400).send({ message: built.message });
    return built.value;
  });
  app.post('/qr', async (request, reply) => {
    const generated = await generateQr(request.body, pool);
    if (!generated.ok) return reply.code(400).send({ message: generated.message });
    return { qrcode: { dataUrl: generated.value.dataUrl }, format: generated.value.format };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    close: async () => {
      await app.close();
      await pool.close();
    },
  };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-tools-'));
const config = loadConfig({
  ...process.env,
  SERVICE_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  SERVICE_LOG_LEVEL: 'silent',
  DATABASE_URL: '',
});
const runtime = await startRuntime(config, 'api');
const service = new ToolKeysService(runtime.deps.database.db, runtime.deps.counters.shared, {
  ...runtime.root.areas.identity.read.users,
  ...runtime.root.areas.identity.usersAdmin,
});
const keys: string[] = [];
for (let i = 0; i < KEYS; i++) {
  const email = `bench-${i}@example.test`;
  await service.createUser({ email, tier: 'max' }, new Date());
  keys.push((await service.createKey({ email, scopes: ['tools:*'] }, new Date())).apiKey);
}
// the background compilation the runtime started covers the same schemas: this resolves when all are done
const failures = (await runtime.app?.compileRemainingSchemas()) ?? [];
if (failures.length > 0) throw new Error(`route schemas that do not compile: ${failures.map((f) => f.route).join(', ')}`);
const port = Number(new URL(runtime.address ?? '').port);
const bare = await startBareRoutes(defaultQrPoolSize());
process.send?.({ port, barePort: bare.port, keys, qrWorkers: defaultQrPoolSize() } satisfies ToolsServerReady);
// the parent going away (even by a crash) stops the server
process.on('disconnect', () => process.exit(0));
process.on('message', async (message) => {
  if (message === 'cpu') {
    // with a CPU profile, the marks (monotonic µs, the profile's clock) delimit the measured rounds
    if (process.execArgv.includes('--cpu-prof')) process.stderr.write(`mark ${process.hrtime.bigint() / 1000n}\n`);
    const usage = process.cpuUsage();
    process.send?.({ cpuMicros: usage.user + usage.system });
    return;
  }
  if (message === 'stop') {
    await bare.close();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
});
