/**
 * Child of bench/overhead.ts (bundled like the production build): the real service and, in the same
 * process, bare Fastify routes running the same work, driven through `inject` (no sockets) in alternating
 * rounds. Prints the CPU a request of each side and the difference: the route's own overhead (auth, limits,
 * validation, hooks, serialization, headers) without the network, the load generator or the host's other
 * processes in the figure.
 */
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { ToolKeysService } from '../src/modules/tools/tool-keys.service.js';
import { buildUtm } from '../src/modules/tools/utm/utm-builder.js';
import { startBrandsBenchService } from './support/brands-service.js';
import { median } from './support/stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const PER_ROUND = Number(process.env.PER_ROUND ?? 400);
/** requests in flight at once, on both sides */
const IN_FLIGHT = 8;
const TOOL_KEYS = 200;
/** names of this run's users (a PostgreSQL database outlives the run) */
const RUN = Date.now().toString(36);

interface Side {
  app: FastifyInstance;
  request: (i: number) => InjectOptions;
}

/** CPU (all threads of this process) a request of one round, in µs. */
async function round(side: Side, n: number): Promise<number> {
  const before = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < n) {
        const res = await side.app.inject(side.request(next++));
        if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}: ${res.body.slice(0, 200)}`);
      }
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

async function compare(label: string, ours: Side, bare: Side): Promise<void> {
  // warm both (JIT, caches), then alternate so that the host's changes of speed hit both alike
  await round(bare, PER_ROUND);
  await round(ours, PER_ROUND);
  const o: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    b.push(await round(bare, PER_ROUND));
    o.push(await round(ours, PER_ROUND));
  }
  const fastest = { ours: Math.min(...o), bare: Math.min(...b) };
  const mid = { ours: median(o), bare: median(b) };
  console.log(
    `${label.padEnd(28)} CPU a request: ours ${fastest.ours.toFixed(0)} µs (median ${mid.ours.toFixed(0)}), bare ${fastest.bare.toFixed(0)} µs (median ${mid.bare.toFixed(0)}) | ` +
      `overhead ${(fastest.ours - fastest.bare).toFixed(1)} µs fastest rounds, ${(mid.ours - mid.bare).toFixed(1)} µs medians | ` +
      `bare/ours ${((100 * fastest.bare) / fastest.ours).toFixed(1)}% fastest, ${((100 * mid.bare) / mid.ours).toFixed(1)}% medians`,
  );
}

// GET /v1/brands (API key, scope, rate limit, query validation, serializer) against the same query
const service = await startBrandsBenchService(() => 'api');
try {
  const { runtime, brands, organizationId } = service;
  const app = runtime.app as FastifyInstance;
  const db = runtime.deps.database.db;
  console.log(
    `route overhead without the network: node ${process.version}, ${service.embedded ? 'embedded PGlite' : 'PostgreSQL'}, ${ROUNDS} alternating rounds of ${PER_ROUND} requests, ${IN_FLIGHT} in flight`,
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
  await bare.ready();

  const brandsAuth = { authorization: `Bearer ${service.apiKey}` };
  await compare(
    'GET /v1/brands',
    { app, request: () => ({ method: 'GET', url: '/v1/brands', headers: brandsAuth }) },
    { app: bare, request: () => ({ method: 'GET', url: '/brands' }) },
  );

  const utmBody = JSON.stringify({
    urls: Array.from({ length: 100 }, (_, i) => `https://shop.example.com/products/item-${i}?color=red&size=m#reviews`),
    source: 'newsletter',
    medium: 'email',
    campaign: 'spring sale 2026',
    content: 'hero banner',
  });
  const json = { 'content-type': 'application/json' };
  await compare(
    'UTM 100 links (tool API)',
    {
      app,
      request: (i) => ({
        method: 'POST',
        url: '/api/v1/tools/utm-builder/build',
        payload: utmBody,
        headers: { ...json, authorization: `Bearer ${toolKeys[i % TOOL_KEYS]}` },
      }),
    },
    { app: bare, request: () => ({ method: 'POST', url: '/utm', payload: utmBody, headers: json }) },
  );
  await bare.close();
} finally {
  await service.stop();
}
