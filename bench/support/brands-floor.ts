/**
 * The floor of GET /v1/brands's features (bench:overhead, BENCH_CASES=floor): the same work as the service's
 * route written as plainly as Fastify allows, in one onRequest hook and without the service's structure.
 * A bearer key checked by its SHA-256 digest against an in-memory map, the scope checked, a fixed-window
 * counter in a Map, the seven headers the route answers with (request id and rate limit), a request id drawn
 * from a pooled random buffer, the route's query and response schemas compiled by Fastify's own compilers
 * (ajv, fast-json-stringify), no logger, metrics, input guards or shutdown bookkeeping.
 *
 * Its distance to the bare route is what the features cost however they are written; the service's distance
 * beyond it is what its structure costs (logger, hooks of other areas, metrics, guards, the handler registry).
 */
import { hash, randomFillSync } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Brand, BrandList, BrandListQuery, type BrandListQueryT, BrandProduct } from '../../src/modules/brands/brands.schemas.js';
import type { BrandsService } from '../../src/modules/brands/brands.service.js';

const ID_BYTES = 10;
const ID_POOL = Buffer.alloc(4096);
let idOffset = ID_POOL.length;

function requestId(): string {
  if (idOffset + ID_BYTES > ID_POOL.length) {
    randomFillSync(ID_POOL);
    idOffset = 0;
  }
  const id = ID_POOL.toString('hex', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `req_${id}`;
}

const WINDOW_MS = 60_000;
const LIMIT = 100_000_000;

export async function startBrandsFloor(brands: BrandsService, organizationId: string, apiKey: string): Promise<FastifyInstance> {
  const principals = new Map([[hash('sha256', apiKey, 'hex'), { organizationId, scopes: ['brands:read'] }]]);
  const windows = new Map<string, { count: number; expiresAt: number }>();
  const app = Fastify({ logger: false, genReqId: requestId });
  app.decorateRequest('organizationId', '');
  for (const schema of [BrandProduct, Brand, BrandList]) app.addSchema(schema);
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers.authorization;
    const principal = header?.startsWith('Bearer ') ? principals.get(hash('sha256', header.slice(7), 'hex')) : undefined;
    if (!principal?.scopes.includes('brands:read')) return done(new Error('forbidden'));
    const now = Date.now();
    const start = now - (now % WINDOW_MS);
    const key = `rl:${principal.organizationId}:${start}`;
    let window = windows.get(key);
    if (!window) {
      window = { count: 0, expiresAt: start + WINDOW_MS };
      windows.set(key, window);
    }
    window.count++;
    const remaining = String(LIMIT - window.count);
    reply.headers({
      'x-request-id': request.id,
      'ratelimit-limit': String(LIMIT),
      'ratelimit-remaining': remaining,
      'ratelimit-reset': String(Math.ceil((start + WINDOW_MS - now) / 1000)),
      'x-ratelimit-limit': String(LIMIT),
      'x-ratelimit-remaining': remaining,
      'x-ratelimit-reset': String((start + WINDOW_MS) / 1000),
    });
    (request as unknown as { organizationId: string }).organizationId = principal.organizationId;
    done();
  });
  app.get('/brands', { schema: { querystring: BrandListQuery, response: { 200: BrandList } } }, async (request) =>
    brands.list((request as unknown as { organizationId: string }).organizationId, request.query as BrandListQueryT),
  );
  await app.ready();
  return app;
}
