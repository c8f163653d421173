/**
 * Tool API benchmark (`npm run bench:tools`). The server runs in a child process on a real loopback port
 * (embedded database in a temp dir, same code path as `service-api api`); autocannon drives it from this
 * process, and the "direct" figures call the same functions in this process without HTTP.
 *
 * Prints: UTM req/s and p99 for 100- and 500-link batches (HTTP vs the builder), QR PNG 512 px and SVG req/s
 * (HTTP vs the encoder, both inline and through a worker pool of the server's size), and the p99 of
 * GET /v1/health/live while PNGs are generated. Many Max-tier keys are used because one key runs one request
 * at a time and has a minute limit and a daily quota.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const SELF = fileURLToPath(import.meta.url);
const KEYS = 400;

interface ServerReady {
  port: number;
  keys: string[];
  qrWorkers: number;
}

async function runServer(): Promise<void> {
  const { loadConfig } = await import('../src/config.js');
  const { startRuntime } = await import('../src/main/runtime.js');
  const { ToolKeysService } = await import('../src/modules/tools/tool-keys.service.js');
  const { defaultQrPoolSize } = await import('../src/modules/tools/qrcode/qr-worker-pool.js');
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
  const service = new ToolKeysService(runtime.deps.database.db);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    const email = `bench-${i}@example.test`;
    await service.createUser({ email, tier: 'max' }, new Date());
    keys.push((await service.createKey({ email, scopes: ['tools:*'] }, new Date())).apiKey);
  }
  const port = Number(new URL(runtime.address ?? '').port);
  process.send?.({ port, keys, qrWorkers: defaultQrPoolSize() } satisfies ServerReady);
  // the parent going away (even by a crash) stops the server
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ cpuMicros: usage.user + usage.system });
      return;
    }
    if (message === 'stop') {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

interface Server {
  ready: ServerReady;
  /** CPU time the server process (all its threads) has used so far, in microseconds */
  cpu: () => Promise<number>;
  stop: () => Promise<void>;
}

function startServer(): Promise<Server> {
  const child = fork(SELF, ['--server'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.once('message', (ready) => {
      resolve({
        ready: ready as ServerReady,
        cpu: () =>
          new Promise((done) => {
            child.once('message', (m) => done((m as { cpuMicros: number }).cpuMicros));
            child.send('cpu');
          }),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.send('stop');
          }),
      });
    });
  });
}

/** Operations per second of a synchronous function, after a short warm-up. */
function directRate(fn: () => unknown, ms = 2000): number {
  const warm = performance.now() + 300;
  while (performance.now() < warm) fn();
  let count = 0;
  const start = performance.now();
  const end = start + ms;
  while (performance.now() < end) {
    fn();
    count++;
  }
  return (count * 1000) / (performance.now() - start);
}

/** Operations per second of an async function kept `concurrency` deep. */
async function directAsyncRate(fn: () => Promise<unknown>, concurrency: number, ms = 2000): Promise<number> {
  let count = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await fn();
        count++;
      }
    }),
  );
  return (count * 1000) / (performance.now() - start);
}

async function load(
  port: number,
  keys: string[],
  urlPath: string,
  body: unknown,
  opts: { connections: number; amount?: number; duration?: number },
) {
  const payload = JSON.stringify(body);
  let keyCursor = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: opts.connections,
    ...(opts.amount !== undefined ? { amount: opts.amount } : { duration: opts.duration ?? 4 }),
    requests: [
      {
        method: 'POST',
        path: urlPath,
        body: payload,
        setupRequest: (request) => {
          const key = keys[keyCursor++ % keys.length] as string;
          return { ...request, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

type LoadResult = Awaited<ReturnType<typeof load>> & { serverCpuMs: number };

/**
 * One result line. Besides the measured ratio, the server's own CPU time per request gives the throughput
 * the server would reach with the load generator on other cores (`capacity`), since both share this machine.
 */
function row(label: string, http: LoadResult, direct: number): string {
  const ratio = (http.rps / direct) * 100;
  const capacity = 1000 / http.serverCpuMs;
  return (
    `${label.padEnd(20)} HTTP ${fmt(http.rps).padStart(6)} req/s p99 ${fmt(http.p99, 1).padStart(6)} ms | direct ${fmt(direct).padStart(6)} ops/s | ` +
    `HTTP/direct ${fmt(ratio, 1).padStart(5)}% ${ratio >= 70 ? 'ok' : 'BELOW 70%'} | server CPU ${fmt(http.serverCpuMs, 3)} ms/req -> capacity ${fmt(capacity)} req/s = ${fmt((capacity / direct) * 100, 1)}% of direct` +
    (http.failed ? `  (${http.failed} non-2xx)` : '')
  );
}

async function measured(server: Server, run: () => ReturnType<typeof load>): Promise<LoadResult> {
  const before = await server.cpu();
  const result = await run();
  const after = await server.cpu();
  const total = result.ok + result.failed;
  return { ...result, serverCpuMs: (after - before) / 1000 / Math.max(1, total) };
}

async function main(): Promise<void> {
  const { buildUtm } = await import('../src/modules/tools/utm/utm-builder.js');
  const { encodeQr } = await import('../src/modules/tools/qrcode/qr-encoder.js');
  const { QrWorkerPool } = await import('../src/modules/tools/qrcode/qr-worker-pool.js');
  const { parseQrRequest } = await import('../src/modules/tools/qrcode/qr-options.js');

  console.log(`tool API benchmark: node ${process.version}, ${availableParallelism()} cores`);
  const server = await startServer();
  const { port, keys, qrWorkers } = server.ready;
  console.log(`server on 127.0.0.1:${port}, ${keys.length} Max-tier keys, ${qrWorkers} QR worker thread(s)\n`);
  const lines: string[] = [];
  try {
    const utm = (n: number) => ({
      urls: Array.from({ length: n }, (_, i) => `https://shop.example.com/products/item-${i}?color=red&size=m#reviews`),
      source: 'newsletter',
      medium: 'email',
      campaign: 'spring sale 2026',
      content: 'hero banner',
    });
    // Each tool has its own quota per key; the two UTM phases use separate halves of the keys.
    const phases = [
      { n: 100, keys: keys.slice(0, KEYS / 2), load: { duration: 4 } },
      { n: 500, keys: keys.slice(KEYS / 2), load: { amount: (KEYS / 2) * 19 } },
    ];
    for (const phase of phases) {
      const body = utm(phase.n);
      const direct = directRate(() => buildUtm(body));
      // warm-up: every key once, so the measurement sees steady state (last use is written once a minute)
      await load(port, phase.keys, '/api/v1/tools/utm-builder/build', body, { connections: 8, amount: phase.keys.length });
      const http = await measured(server, () =>
        load(port, phase.keys, '/api/v1/tools/utm-builder/build', body, { connections: 8, ...phase.load }),
      );
      lines.push(row(`UTM ${phase.n}-link batch`, http, direct));
      console.log(lines.at(-1));
    }

    const qrText = 'https://shop.example.com/products/item-42?utm_source=newsletter&utm_medium=email&utm_campaign=spring';
    for (const format of ['png', 'svg'] as const) {
      const body = { text: qrText, format, size: 512 };
      const parsed = parseQrRequest(body);
      if (!parsed.ok) throw new Error(parsed.message);
      const direct = directRate(() => encodeQr(parsed.value));
      await load(port, keys, '/api/v1/tools/qrcode/generate', body, { connections: 8, amount: 400 });
      const http = await measured(server, () => load(port, keys, '/api/v1/tools/qrcode/generate', body, { connections: 8, duration: 4 }));
      lines.push(row(`QR ${format.toUpperCase()} 512 px`, http, direct));
      console.log(lines.at(-1));
      if (format === 'png') {
        const pool = new QrWorkerPool(qrWorkers);
        await pool.encode(parsed.value);
        const pooled = await directAsyncRate(() => pool.encode(parsed.value), 8);
        await pool.close();
        const ratio = (http.rps / pooled) * 100;
        lines.push(`${''.padEnd(20)} vs the encoder in a ${qrWorkers}-thread pool: ${fmt(pooled)} ops/s, HTTP/pool ${fmt(ratio, 1)}%`);
        console.log(lines.at(-1));
      }
    }

    // Health latency while large PNGs are generated (each would hold the event loop this long if inline).
    const bigPng = { text: qrText.repeat(8), format: 'png', size: 2048 };
    const bigParsed = parseQrRequest(bigPng);
    if (!bigParsed.ok) throw new Error(bigParsed.message);
    const blockMs = 1000 / directRate(() => encodeQr(bigParsed.value), 1000);
    const pngLoad = load(port, keys, '/api/v1/tools/qrcode/generate', bigPng, { connections: 8, duration: 5 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await autocannon({ url: `http://127.0.0.1:${port}/v1/health/live`, connections: 1, duration: 4 });
    const png = await pngLoad;
    const healthP99 = health.latency.p99;
    lines.push(
      `health p99 during PNG load ${fmt(healthP99, 1)} ms (target < 20 ms) ${healthP99 < 20 ? 'ok' : 'ABOVE TARGET'}; PNG 2048 px load ${fmt(png.rps)} req/s, p99 ${fmt(png.p99, 1)} ms; one such PNG takes ${fmt(blockMs, 1)} ms of CPU, kept off the event loop by the worker pool`,
    );
    console.log(lines.at(-1));
  } finally {
    await server.stop();
  }
}

if (process.argv.includes('--server')) await runServer();
else await main();
