/**
 * The shared rules behind "no 5xx on malformed input": U+0000 and unpaired surrogates refused with the
 * route's code, id formats on path params, bounded date-time years, database input errors as 400,
 * framework and HTTP-parser errors in the envelope with x-request-id, closed querystrings, content
 * types, and the trailing-slash answer.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('shared input rules', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let brandId: string;

  before(async () => {
    ctx = await createTestContext();
    const org = await ctx.createOrganization();
    auth = org.auth;
    ({ brandId } = await ctx.createBrand(org.organizationId, 'Rules'));
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.app.inject({ url, headers: auth });

  it('U+0000 in a body field answers the route code with the field path', async () => {
    const res = await ctx.app.inject({
      method: 'PUT',
      url: '/v1/publishing-profiles',
      headers: auth,
      payload: { brandId, name: 'a\u0000b' },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error, 'invalid_public_publishing_profile_request');
    assert.deepEqual(res.json().fields, [{ path: ['name'], source: 'body', message: 'must not contain U+0000 or unpaired surrogates' }]);
  });

  it('U+0000 in a query filter and an unpaired surrogate in a body answer 400', async () => {
    const q = await get('/v1/brands?slug=a%00');
    assert.equal(q.statusCode, 400);
    assert.equal(q.json().error, 'invalid_public_brand_query');
    const plan = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: `{"plan":{"brandId":"${brandId}","text":"hi \\ud800"}}`,
    });
    assert.equal(plan.statusCode, 400);
    assert.equal(plan.json().error, 'invalid_public_publish_plan_request');
  });

  it('path ids have their format: a malformed id answers 400, a well-formed unknown id 404', async () => {
    const bad = await get('/v1/brands/brd_x');
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json().fields[0].path, ['brandId']);
    const nul = await get('/v1/publish/jobs/job_%00');
    assert.equal(nul.statusCode, 400);
    const unknown = await get('/v1/brands/brd_01J0000000000000000000000Z');
    assert.equal(unknown.statusCode, 404);
  });

  it('every path parameter of the document has a format (pattern or enum)', async () => {
    const doc = (await get('/v1/openapi.json')).json() as { paths: Record<string, Record<string, { parameters?: any[] }>> };
    const loose: string[] = [];
    for (const [p, item] of Object.entries(doc.paths))
      for (const [m, op] of Object.entries(item))
        for (const param of op.parameters ?? [])
          if (param.in === 'path' && !param.schema?.pattern && !param.schema?.enum) loose.push(`${m} ${p} ${param.name}`);
    assert.deepEqual(loose, []);
  });

  it('date-time years are bounded (1900-2999): year 0000 and 9999 answer 400', async () => {
    const early = await get('/v1/publish/jobs?from=0000-01-01T00:00:00Z');
    assert.equal(early.statusCode, 400);
    assert.equal(early.json().error, 'invalid_public_publish_job_query');
    const late = await get(`/v1/publish/slots?brandId=${brandId}&from=9999-12-31T23:59:59Z`);
    assert.equal(late.statusCode, 400);
    assert.equal(late.json().error, 'invalid_public_publish_slot_query');
    const ok = await get('/v1/publish/jobs?from=2026-01-01T00:00:00Z');
    assert.equal(ok.statusCode, 200);
  });

  it('numbers too large to be finite answer 400', async () => {
    const res = await get('/v1/brands?limit=1e309');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_public_brand_query');
  });

  it('database encoding and range errors (SQLSTATE 22021, 22P05, 22008) answer 400 as a last line of defence', async () => {
    const app = await buildApp(ctx.root, { logger: false });
    const db = ctx.database.db;
    app.get('/v1/test-sqlstate/:n', { schema: { hide: true } }, async (request) => {
      const n = (request.params as { n: string }).n;
      if (n === 'nul') await sql`select ${'a\u0000b'}::text`.execute(db);
      if (n === 'jsonb') await sql`select '"\\u0000"'::jsonb`.execute(db);
      if (n === 'date') await sql`select '0000-01-01'::timestamptz`.execute(db);
      return { ok: true };
    });
    await app.ready();
    try {
      for (const n of ['nul', 'jsonb', 'date']) {
        const res = await app.inject({ url: `/v1/test-sqlstate/${n}` });
        assert.equal(res.statusCode, 400, `${n}: ${res.body}`);
        assert.equal(res.json().error, 'invalid_request');
        assert.equal(res.json().requestId, res.headers['x-request-id']);
      }
    } finally {
      await app.close();
    }
  });

  it('content types a route does not take: 415, media 400 invalid_multipart_media_upload', async () => {
    const plain = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: '{}',
    });
    assert.equal(plain.statusCode, 415);
    assert.equal(plain.json().error, 'unsupported_media_type');
    const media = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'x',
    });
    assert.equal(media.statusCode, 400);
    assert.equal(media.json().error, 'invalid_multipart_media_upload');
    const empty = await ctx.app.inject({
      method: 'POST',
      url: '/v1/media',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 400);
  });

  it('a trailing slash answers 404 naming the path that exists, not a self-contradictory 405', async () => {
    const res = await get('/v1/health/live/');
    assert.equal(res.statusCode, 404);
    assert.match(res.json().message, /Did you mean \/v1\/health\/live\?/);
    const wrong = await ctx.app.inject({ method: 'DELETE', url: '/v1/brands', headers: auth });
    assert.equal(wrong.statusCode, 405);
    assert.doesNotMatch(wrong.json().message, /allowed: .*DELETE/);
  });

  it('framework errors (bad percent-encoding, over-long path segment) use the envelopes', async () => {
    const bad = await get('/v1/brands/%E0%A4%A');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_request');
    assert.equal(bad.json().requestId, bad.headers['x-request-id']);
    const long = await get(`/v1/brands/${'x'.repeat(300)}`);
    assert.ok(long.statusCode === 414 || long.statusCode === 400, String(long.statusCode));
    assert.equal(long.json().requestId, long.headers['x-request-id']);
    const tool = await ctx.app.inject({ method: 'POST', url: '/api/v1/tools/%E0%A4%A' });
    assert.equal(tool.statusCode, 400);
    assert.equal(tool.json().object, 'tool_api.error');
  });
});

describe('HTTP parser errors over a socket', () => {
  let ctx: TestContext;
  let port: number;
  before(async () => {
    ctx = await createTestContext();
    const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(address).port);
  });
  after(() => ctx.close());

  const raw = (request: string | Buffer) =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      let data = '';
      socket.on('data', (d) => {
        data += d.toString('latin1');
      });
      socket.on('close', () => resolve(data));
      socket.on('error', () => undefined);
      setTimeout(() => socket.destroy(), 5000);
    });

  const parse = (answer: string) => {
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), head: head.toLowerCase(), body: JSON.parse(body) };
  };

  it('malformed headers answer 400 with ErrorResponse, requestId and x-request-id', async () => {
    const res = parse(await raw('GET /v1/brands HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n'));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
    assert.match(res.head, new RegExp(`x-request-id: ${res.body.requestId}`));
  });

  it('headers over the size limit answer 431 in the envelope; the tool API keeps its own', async () => {
    const big = `x-big: ${'a'.repeat(20_000)}\r\n`;
    const res = parse(await raw(`GET /v1/brands HTTP/1.1\r\nhost: x\r\n${big}\r\n`));
    assert.equal(res.status, 431);
    assert.equal(res.body.error, 'request_header_too_large');
    const tool = parse(await raw(`POST /api/v1/tools/utm-builder/build HTTP/1.1\r\nhost: x\r\n${big}\r\n`));
    assert.equal(tool.status, 431);
    assert.equal(tool.body.object, 'tool_api.error');
    assert.equal(tool.body.error.code, 'request_header_too_large');
  });
});
