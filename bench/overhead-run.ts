/**
 * Child of bench/overhead.ts (bundled like the production build): the real service and, in the same
 * process, bare Fastify routes running the same work, driven through `inject` (no sockets) in alternating
 * rounds. Prints the CPU a request of each side and the difference: the route's own overhead (auth, limits,
 * validation, hooks, serialization, headers) without the network, the load generator or the host's other
 * processes in the figure.
 */
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { generateQr } from '../src/modules/tools/qrcode/qr-generator.js';
import { defaultQrPoolSize, QrWorkerPool } from '../src/modules/tools/qrcode/qr-worker-pool.js';
import { ToolKeysService } from '../src/modules/tools/tool-keys.service.js';
import { buildUtm } from '../src/modules/tools/utm/utm-builder.js';
import { startBrandsFloor } from './support/brands-floor.js';
import { startBrandsBenchService } from './support/brands-service.js';
import { median, percentile } from './support/stats.js';

/** pairs of short rounds (one of each side, the order alternating) and the requests of a round */
const PAIRS = Number(process.env.PAIRS ?? 400);
const PER_ROUND = Number(process.env.PER_ROUND ?? 40);
/** requests in flight at once, on both sides */
const IN_FLIGHT = 8;
/**
 * tool keys the UTM rounds take turns with (each key's daily quota is 100 requests of 100 links): enough for the
 * run's warm-up (1,200 requests) and rounds, with a tenth to spare
 */
const TOOL_KEYS = Number(process.env.TOOL_KEYS ?? Math.max(400, Math.ceil(((PAIRS * PER_ROUND + 1200) * 1.1) / 100)));
/**
 * BENCH_CASES=brands,floor,utm,qr picks the comparisons (floor: the brand list's features in plain code against the
 * bare route, and the service against that plain code; qr: an SVG QR code of 512 px)
 */
const CASES = new Set((process.env.BENCH_CASES ?? 'brands,utm').split(','));
/** names of this run's users (a PostgreSQL database outlives the run) */
const RUN = Date.now().toString(36);

interface Side {
  app: FastifyInstance;
  /** the side's i-th request */
  request: (i: number) => InjectOptions;
  /** requests sent so far */
  sent: number;
}

/** CPU (all threads of this process) a request of one round, in µs. */
async function round(side: Side, n: number): Promise<number> {
  const before = process.cpuUsage();
  let left = n;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left > 0) {
        left--;
        const res = await side.app.inject(side.request(side.sent++));
        if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      }
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

/**
 * Short rounds in pairs, one of each side back to back (which one first alternates), so that both rounds
 * of a pair run at the same speed of the host; the figures are the medians over the pairs of the two sides'
 * ratio and difference. On a shared host whose speed moves by tens of percent within a minute, the ratio
 * of a pair holds still where the fastest or the median round of each side, taken apart, do not.
 */
async function compare(label: string, ours: Side, bare: Side, names: [string, string] = ['ours', 'bare']): Promise<void> {
  // warm both (JIT, caches)
  for (let i = 0; i < 3; i++) {
    await round(bare, 400);
    await round(ours, 400);
  }
  const o: number[] = [];
  const b: number[] = [];
  const ratio: number[] = [];
  const diff: number[] = [];
  for (let r = 0; r < PAIRS; r++) {
    let x: number;
    let y: number;
    if (r % 2 === 0) {
      y = await round(bare, PER_ROUND);
      x = await round(ours, PER_ROUND);
    } else {
      x = await round(ours, PER_ROUND);
      y = await round(bare, PER_ROUND);
    }
    o.push(x);
    b.push(y);
    ratio.push((100 * y) / x);
    diff.push(x - y);
  }
  console.log(
    `${label.padEnd(28)} CPU a request (medians): ${names[0]} ${median(o).toFixed(0)} µs, ${names[1]} ${median(b).toFixed(0)} µs | ` +
      `per pair: ${names[1]}/${names[0]} ${median(ratio).toFixed(1)}% (quartiles ${percentile(ratio, 25).toFixed(1)}-${percentile(ratio, 75).toFixed(1)}%), ` +
      `overhead ${median(diff).toFixed(1)} µs`,
  );
}

// GET /v1/brands (API key, scope, rate limit, query validation, serializer) against the same query
const service = await startBrandsBenchService(() => 'api');
try {
  const { runtime, brands, organizationId } = service;
  const app = runtime.app as FastifyInstance;
  const db = runtime.deps.database.db;
  console.log(
    `route overhead without the network: node ${process.version}, ${service.embedded ? 'embedded PGlite' : 'PostgreSQL'}, ${PAIRS} pairs of rounds of ${PER_ROUND} requests, ${IN_FLIGHT} in flight`,
  );

  // POST /api/v1/tools/utm-builder/build with 100 links (tool key, limits, quota) against the same builder
  const keys = new ToolKeysService(db, runtime.deps.counters.shared, {
    ...runtime.root.areas.identity.read.users,
    ...runtime.root.areas.identity.usersAdmin,
  });
  const toolKeys: string[] = [];
  for (let i = 0; i < TOOL_KEYS; i++) {
    const email = `bench-tools-${RUN}-${i}@example.test`;
    await keys.createUser({ email, tier: 'max' }, new Date());
    toolKeys.push((await keys.createKey({ email, scopes: ['tools:*'] }, new Date())).apiKey);
  }
  await app.compileRemainingSchemas();

  const bare = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  bare.get('/brands', async () => brands.list(organizationId, {}));
  bare.post('/utm', async (request, reply) => {
    const built = buildUtm(request.body);
    if (!built.ok) return reply.code(400).send({ message: built.message });
    return built.value;
  });
  // the service's pool size (an SVG of this size is encoded inline, a PNG in the pool)
  const qrPool = new QrWorkerPool(defaultQrPoolSize());
  bare.post('/qr', async (request, reply) => {
    const generated = await generateQr(request.body, qrPool);
    if (!generated.ok) return reply.code(400).send({ message: generated.message });
    return { qrcode: { dataUrl: generated.value.dataUrl }, format: generated.value.format };
  });
  await bare.ready();

  const brandsAuth = { authorization: `Bearer ${service.apiKey}` };
  if (CASES.has('brands'))
    await compare(
      'GET /v1/brands',
      { app, sent: 0, request: () => ({ method: 'GET', url: '/v1/brands', headers: brandsAuth }) },
      { app: bare, sent: 0, request: () => ({ method: 'GET', url: '/brands' }) },
    );

  if (CASES.has('floor')) {
    const floor = await startBrandsFloor(brands, organizationId, service.apiKey);
    const floorSide = (): Side => ({ app: floor, sent: 0, request: () => ({ method: 'GET', url: '/brands', headers: brandsAuth }) });
    await compare('GET /v1/brands, plain code', floorSide(), { app: bare, sent: 0, request: () => ({ method: 'GET', url: '/brands' }) }, [
      'plain',
      'bare',
    ]);
    await compare(
      'GET /v1/brands / plain code',
      { app, sent: 0, request: () => ({ method: 'GET', url: '/v1/brands', headers: brandsAuth }) },
      floorSide(),
      ['ours', 'plain'],
    );
    await floor.close();
  }

  const utmBody = JSON.stringify({
    urls: Array.from({ length: 100 }, (_, i) => `https://shop.example.com/products/item-${i}?color=red&size=m#reviews`),
    source: 'newsletter',
    medium: 'email',
    campaign: 'spring sale 2026',
    content: 'hero banner',
  });
  const json = { 'content-type': 'application/json' };
  /** a tool API request (the keys taken in turn) and the bare route's with the same body */
  const toolSides = (url: string, bareUrl: string, payload: string): [Side, Side] => [
    {
      app,
      sent: 0,
      request: (i) => ({ method: 'POST', url, payload, headers: { ...json, authorization: `Bearer ${toolKeys[i % TOOL_KEYS]}` } }),
    },
    { app: bare, sent: 0, request: () => ({ method: 'POST', url: bareUrl, payload, headers: json }) },
  ];
  if (CASES.has('utm')) await compare('UTM 100 links (tool API)', ...toolSides('/api/v1/tools/utm-builder/build', '/utm', utmBody));
  const qrBody = JSON.stringify({
    text: 'https://shop.example.com/products/item-42?utm_source=newsletter&utm_medium=email&utm_campaign=spring',
    format: 'svg',
    size: 512,
  });
  if (CASES.has('qr')) await compare('QR SVG 512 px (tool API)', ...toolSides('/api/v1/tools/qrcode/generate', '/qr', qrBody));
  await bare.close();
  await qrPool.close();
} finally {
  await service.stop();
}
