/**
 * Tool API benchmark (`npm run bench:tools`). The server runs in a child process on a real loopback port
 * (bench/tools-server.ts: embedded database in a temp dir, same code path as `service-api api`, bundled as
 * plain JavaScript like the production build); autocannon drives it from this process, and the "direct"
 * figures call the same functions in this process without HTTP.
 *
 * The baseline is a bare Fastify route in the same server process (its own port, default JSON parser, no
 * auth, limits or idempotency) running the same builder on the same body; tool API and bare route are
 * measured in alternating rounds of the same number of requests, so both see the same machine load.
 * Target: tool API throughput >= 90% of the bare route.
 *
 * Prints: UTM req/s and p99 for 100- and 500-link batches, QR PNG 512 px and SVG req/s (each: tool API,
 * bare route, ratio; and the builder/encoder called directly), and the p99 of GET /v1/health/live while
 * PNGs are generated. Many Max-tier keys are used because one key runs one request at a time and has a
 * minute limit and a daily quota.
 *
 * BENCH_PHASES=utm100,utm500,svg,png,health picks phases; BENCH_SERVER_NODE_ARGS (e.g. --cpu-prof
 * --cpu-prof-dir=/tmp/prof) is passed to the server process.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { bundleWithQrWorker } from '../scripts/build-service.js';
import type { ToolsServerReady as ServerReady } from './tools-server.js';

const KEYS = 400;

/** The server and its QR worker's module, bundled like `npm run build` bundles the service. */
async function bundleServer(): Promise<string> {
  const outdir = path.resolve(import.meta.dirname, '../dist/bench-tools');
  await bundleWithQrWorker(outdir, '', { 'tools-server': path.resolve(import.meta.dirname, 'tools-server.ts') });
  return path.join(outdir, 'tools-server.js');
}

interface Server {
  ready: ServerReady;
  /** CPU time the server process (all its threads) has used so far, in microseconds */
  cpu: () => Promise<number>;
  stop: () => Promise<void>;
}

async function startServer(): Promise<Server> {
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = fork(await bundleServer(), [], {
    execArgv: nodeArgs,
    env: { ...process.env, BENCH_TOOL_KEYS: String(KEYS) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
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
  const started = performance.now();
  let finished = started;
  // autocannon without a callback returns its event emitter, made thenable
  const instance = autocannon({
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
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  const done = () => {
    finished = performance.now();
  };
  instance.on('response', done);
  instance.on('reqError', done);
  const result = await instance;
  return {
    // completed requests over the time to the last answer: with `amount`, autocannon only notices the end
    // at its next one-second sample, so its own `duration` is a whole number of seconds (3,000 requests
    // in 3.1 s would count as 4 s), which skewed a ratio of two such rounds by up to a third
    rps: (result['2xx'] + result.non2xx) / Math.max(0.01, opts.amount !== undefined ? (finished - started) / 1000 : result.duration),
    p99: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

/**
 * Latency of one GET at a time for `ms`, timed here with sub-millisecond resolution: autocannon keeps its
 * latencies in whole milliseconds, so a probe answered in under 1 ms read as a p99 of 0.0 ms.
 */
async function probe(url: string, ms: number) {
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + ms;
  try {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        const r = await request(url, { dispatcher: agent });
        await r.body.dump();
        if (r.statusCode !== 200) failed++;
      } catch {
        failed++;
      }
      latencies.push(performance.now() - t);
    }
  } finally {
    await agent.close();
  }
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? Number.NaN;
  return { n: latencies.length, failed, p50: at(50), p99: at(99), max: latencies[latencies.length - 1] ?? Number.NaN };
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

type LoadResult = Awaited<ReturnType<typeof load>> & { serverCpuMs: number };

const PHASES = new Set((process.env.BENCH_PHASES ?? 'utm100,utm500,svg,png,health').split(','));

async function measured(server: Server, run: () => ReturnType<typeof load>): Promise<LoadResult> {
  const before = await server.cpu();
  const result = await run();
  const after = await server.cpu();
  const total = result.ok + result.failed;
  return { ...result, serverCpuMs: (after - before) / 1000 / Math.max(1, total) };
}

/** Sums alternating rounds: requests / time, p99 of the worst round, CPU per request averaged. */
function combine(rounds: LoadResult[]): LoadResult {
  const n = rounds.length;
  return {
    rps: rounds.reduce((a, r) => a + r.rps, 0) / n,
    p99: Math.max(...rounds.map((r) => r.p99)),
    ok: rounds.reduce((a, r) => a + r.ok, 0),
    failed: rounds.reduce((a, r) => a + r.failed, 0),
    serverCpuMs: rounds.reduce((a, r) => a + r.serverCpuMs, 0) / n,
  };
}

interface Comparison {
  api: LoadResult;
  bare: LoadResult;
}

/**
 * Tool API and bare route in alternating rounds of `amount` requests each (bare first), after a warm-up
 * of both: machine load that changes during the run hits both sides alike. Six short rounds a side rather
 * than three long ones: on a shared host, load that shifts within seconds evens out over more pairs.
 */
async function compare(
  server: Server,
  keys: string[],
  api: { path: string },
  barePath: string,
  body: unknown,
  opts: { amount: number; rounds: number; warmup: number },
): Promise<Comparison> {
  const { port, barePort } = server.ready;
  await load(barePort, keys, barePath, body, { connections: 8, amount: opts.warmup });
  await load(port, keys, api.path, body, { connections: 8, amount: opts.warmup });
  const apiRounds: LoadResult[] = [];
  const bareRounds: LoadResult[] = [];
  for (let r = 0; r < opts.rounds; r++) {
    bareRounds.push(await measured(server, () => load(barePort, keys, barePath, body, { connections: 8, amount: opts.amount })));
    apiRounds.push(await measured(server, () => load(port, keys, api.path, body, { connections: 8, amount: opts.amount })));
  }
  return { api: combine(apiRounds), bare: combine(bareRounds) };
}

const TARGET_PCT = 90;

function row(label: string, c: Comparison, direct: number): string {
  const ratio = (c.api.rps / c.bare.rps) * 100;
  const cpuRatio = (c.bare.serverCpuMs / c.api.serverCpuMs) * 100;
  return (
    `${label.padEnd(18)} tool API ${fmt(c.api.rps).padStart(6)} req/s p99 ${fmt(c.api.p99, 1).padStart(5)} ms | ` +
    `bare route ${fmt(c.bare.rps).padStart(6)} req/s p99 ${fmt(c.bare.p99, 1).padStart(5)} ms | ` +
    `tool API/bare ${fmt(ratio, 1).padStart(5)}% ${ratio >= TARGET_PCT ? 'ok' : `BELOW ${TARGET_PCT}%`} | ` +
    `server CPU ${fmt(c.api.serverCpuMs, 3)} vs ${fmt(c.bare.serverCpuMs, 3)} ms/req (${fmt(cpuRatio, 1)}%) | direct ${fmt(direct)} ops/s` +
    (c.api.failed || c.bare.failed ? `  (${c.api.failed}+${c.bare.failed} non-2xx)` : '')
  );
}

async function main(): Promise<void> {
  const { buildUtm } = await import('../src/modules/tools/utm/utm-builder.js');
  const { encodeQr } = await import('../src/modules/tools/qrcode/qr-encoder.js');
  const { QrWorkerPool } = await import('../src/modules/tools/qrcode/qr-worker-pool.js');
  const { parseQrRequest } = await import('../src/modules/tools/qrcode/qr-options.js');

  console.log(`tool API benchmark: node ${process.version}, ${availableParallelism()} cores`);
  const server = await startServer();
  const { port, keys, qrWorkers } = server.ready;
  console.log(
    `server on 127.0.0.1:${port} (bare route baseline on :${server.ready.barePort}), ${keys.length} Max-tier keys, ${qrWorkers} QR worker thread(s)\n`,
  );
  try {
    const utm = (n: number) => ({
      urls: Array.from({ length: n }, (_, i) => `https://shop.example.com/products/item-${i}?color=red&size=m#reviews`),
      source: 'newsletter',
      medium: 'email',
      campaign: 'spring sale 2026',
      content: 'hero banner',
    });
    // Each tool has its own daily quota per key (Max: 10,000 links): the two UTM phases use separate
    // halves of the keys, and each phase's requests stay within that half's quota.
    const half = KEYS / 2;
    const phases = [
      { name: 'utm100', n: 100, keys: keys.slice(0, half), amount: 1500, rounds: 6 },
      { name: 'utm500', n: 500, keys: keys.slice(half), amount: 600, rounds: 6 },
    ].filter((p) => PHASES.has(p.name));
    for (const phase of phases) {
      const body = utm(phase.n);
      const direct = directRate(() => buildUtm(body));
      const c = await compare(server, phase.keys, { path: '/api/v1/tools/utm-builder/build' }, '/utm', body, {
        amount: phase.amount,
        rounds: phase.rounds,
        warmup: phase.keys.length,
      });
      console.log(row(`UTM ${phase.n}-link batch`, c, direct));
    }

    const qrText = 'https://shop.example.com/products/item-42?utm_source=newsletter&utm_medium=email&utm_campaign=spring';
    for (const format of ['svg', 'png'] as const) {
      if (!PHASES.has(format)) continue;
      const body = { text: qrText, format, size: 512 };
      const parsed = parseQrRequest(body);
      if (!parsed.ok) throw new Error(parsed.message);
      const direct = directRate(() => encodeQr(parsed.value));
      const c = await compare(server, keys, { path: '/api/v1/tools/qrcode/generate' }, '/qr', body, {
        amount: format === 'svg' ? 1500 : 400,
        rounds: 6,
        warmup: 400,
      });
      console.log(row(`QR ${format.toUpperCase()} 512 px`, c, direct));
      if (format === 'png') {
        const pool = new QrWorkerPool(qrWorkers);
        await pool.encode(parsed.value);
        const pooled = await directAsyncRate(() => pool.encode(parsed.value), 8);
        await pool.close();
        console.log(`${''.padEnd(18)} the encoder in a ${qrWorkers}-thread pool, without HTTP: ${fmt(pooled)} ops/s`);
      }
    }

    if (PHASES.has('health')) {
      // Health latency while large PNGs are generated (each would hold the event loop this long if inline).
      const bigPng = { text: qrText.repeat(8), format: 'png', size: 2048 };
      const bigParsed = parseQrRequest(bigPng);
      if (!bigParsed.ok) throw new Error(bigParsed.message);
      const blockMs = 1000 / directRate(() => encodeQr(bigParsed.value), 1000);
      const pngLoad = load(port, keys, '/api/v1/tools/qrcode/generate', bigPng, { connections: 8, duration: 5 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const health = await probe(`http://127.0.0.1:${port}/v1/health/live`, 4_000);
      const png = await pngLoad;
      console.log(
        `health during PNG load: ${health.n} probes one at a time (${health.failed} not 200), p50 ${fmt(health.p50, 2)} ms, p99 ${fmt(health.p99, 2)} ms, max ${fmt(health.max, 2)} ms (target p99 < 20 ms) ${health.p99 < 20 && health.failed === 0 ? 'ok' : 'ABOVE TARGET'}; PNG 2048 px load ${fmt(png.rps)} req/s, p99 ${fmt(png.p99, 1)} ms; one such PNG takes ${fmt(blockMs, 1)} ms of CPU, kept off the event loop by the worker pool`,
      );
    }
  } finally {
    await server.stop();
  }
}

await main();
