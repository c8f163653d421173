/**
 * JSON bodies mean exactly what their JSON says (docs/hardening.md): no type conversion, `null` kept,
 * duplicate keys refused, nesting and size bounded at the parser with the route's validation code, and
 * nothing stored by a refused body.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { checkJsonShape, JSON_MAX_DEPTH } from '../../src/http/json-body.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { createToolUser } from '../tools/tool-http.support.js';

/** `depth` levels of objects and arrays around a number. */
const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
};
/** Deep JSON text built as text (JSON.stringify itself overflows on the deepest values). */
const deepText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('JSON body shape: the scanner', () => {
  it('finds duplicate keys at any depth, however the key is escaped, and never inside strings', () => {
    assert.deepEqual(checkJsonShape('{"dryRun":true,"dryRun":false}')?.path, ['dryRun']);
    assert.deepEqual(checkJsonShape('{"a":[{"x":1},{"y":1,"y":2}]}')?.path, ['a', '1', 'y']);
    assert.deepEqual(checkJsonShape('{"a":1,"\\u0061":2}')?.path, ['a']);
    assert.equal(checkJsonShape('{"a":{"b":1},"c":{"b":1}}'), null, 'the same key in two objects');
    assert.equal(checkJsonShape('{"a":"{\\"a\\":1,\\"a\\":2}","b":"\\\\","c":"]"}'), null, 'braces, quotes and backslashes in strings');
    assert.equal(checkJsonShape('["a","a"]'), null, 'equal array values');
    assert.equal(checkJsonShape(''), null);
    assert.equal(checkJsonShape('{"a":'), null, 'invalid JSON is left to the parser');
  });

  it('bounds depth, values and keys', () => {
    assert.equal(checkJsonShape(JSON.stringify(nested(JSON_MAX_DEPTH))), null);
    const deep = checkJsonShape(JSON.stringify(nested(JSON_MAX_DEPTH + 1)));
    assert.equal(deep?.kind, 'too_deep');
    assert.equal(deep?.path.length, JSON_MAX_DEPTH);
    assert.equal(checkJsonShape(deepText(100_000))?.kind, 'too_deep');
    assert.equal(checkJsonShape('['.repeat(100_000))?.kind, 'too_deep');
    assert.equal(
      checkJsonShape(JSON.stringify(Array.from({ length: 11 }, () => 0)), { maxDepth: 64, maxValues: 10, maxKeys: 10 })?.kind,
      'too_many_values',
    );
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])));
    assert.equal(checkJsonShape(wide, { maxDepth: 64, maxValues: 100, maxKeys: 10 })?.kind, 'too_many_keys');
  });
});

describe('JSON bodies over HTTP', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let toolAuth: Record<string, string>;
  let brandId: string;
  let runId: string;

  before(async () => {
    ctx = await createTestContext({ env: { SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' } });
    const org = await ctx.createOrganization();
    auth = org.auth;
    brandId = (await ctx.createBrand(org.organizationId, 'Shape')).brandId;
    toolAuth = (await createToolUser(ctx, 'pro')).auth;
    const source = await send('POST', '/v1/automation-sources', { brandId, kind: 'external', name: 'agent' });
    assert.equal(source.statusCode, 201, source.body);
    const run = await send('POST', '/v1/automation-runs', { automationSourceId: source.json().automationSourceId, dryRun: false });
    runId = run.json().automationRunId;
  });
  after(() => ctx.close());

  function send(method: string, url: string, body: unknown, headers: Record<string, string> = auth) {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    return ctx.app.inject({ method: method as 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload });
  }

  async function rowCounts(): Promise<string> {
    const tables = await sql<{ t: string }>`
      select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(
      ctx.database.db,
    );
    const counts: string[] = [];
    for (const { t } of tables.rows) {
      const r = await sql<{ n: string }>`select count(*)::text as n from ${sql.raw(`"${t}"`)}`.execute(ctx.database.db);
      counts.push(`${t}=${r.rows[0]!.n}`);
    }
    return counts.join(' ');
  }

  it('a value of another JSON type is refused naming the field; null is kept or refused, never converted', async () => {
    const typed = await send('POST', '/v1/webhook-endpoints', {
      url: 'https://example.com/hook',
      eventTypes: ['media.ready'],
      description: 123,
    });
    assert.equal(typed.statusCode, 400, typed.body);
    assert.equal(typed.json().error, 'invalid_public_webhook_endpoint_create_request');
    assert.ok(
      typed.json().fields.some((f: { path: string[] }) => f.path.join('.') === 'description'),
      typed.body,
    );

    const created = await send('POST', '/v1/webhook-endpoints', {
      url: 'https://example.com/hook',
      eventTypes: ['media.ready'],
      description: null,
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().description, null, 'null stays null, not ""');
    const id = created.json().webhookEndpointId as string;
    const enabled = await send('PATCH', `/v1/webhook-endpoints/${id}`, { enabled: null });
    assert.equal(enabled.statusCode, 400, enabled.body);
    assert.deepEqual(enabled.json().fields[0].path, ['enabled']);
    const disabled = await send('PATCH', `/v1/webhook-endpoints/${id}`, { enabled: 'false' });
    assert.equal(disabled.statusCode, 400, 'the text "false" is not false');
    assert.equal((await send('PATCH', `/v1/webhook-endpoints/${id}`, { enabled: false })).json().enabled, false);

    // a string-first nullable (altText) keeps null as null
    const photo = readFileSync(new URL('../publishing/fixtures/photo-640.jpg', import.meta.url)).toString('base64');
    const media = await send('POST', '/v1/media', { dataBase64: photo, brandId, altText: null });
    assert.equal(media.statusCode, 201, media.body);
    // no alt text is recorded (an empty one would be the text "")
    assert.equal(media.json().metadata.altText ?? null, null, JSON.stringify(media.json().metadata));
    const numericAlt = await send('POST', '/v1/media', { dataBase64: photo, brandId, altText: 123 });
    assert.equal(numericAlt.statusCode, 400, 'a number is not the text "123"');
    assert.deepEqual(numericAlt.json().fields[0].path, ['altText']);

    // query strings and path parameters are text: they are still converted to their declared types
    const listed = await ctx.app.inject({ method: 'GET', url: '/v1/webhook-endpoints?limit=1', headers: auth });
    assert.equal(listed.statusCode, 200, listed.body);
  });

  it('a duplicate key is refused with the route code, naming the key', async () => {
    const res = await send('POST', '/v1/webhook-endpoints', '{"url":"https://example.com/a","eventTypes":["media.ready"],"eventTypes":[]}');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_public_webhook_endpoint_create_request');
    assert.deepEqual(res.json().fields, [{ path: ['eventTypes'], source: 'body', message: 'is given more than once' }]);
    const tool = await send('POST', '/api/v1/tools/qrcode/generate', '{"text":"a","text":"b"}', toolAuth);
    assert.equal(tool.statusCode, 400);
    assert.equal(tool.json().object, 'tool_api.error');
    assert.equal(tool.json().error.code, 'invalid_request');
    assert.match(tool.json().error.message, /text: is given more than once/);
  });

  it('deep bodies (3,000 and 10,000 levels) answer 400 with the route code and store nothing', async () => {
    const cases: Array<{ method: string; url: string; body: (deep: string) => string }> = [
      {
        method: 'POST',
        url: '/v1/webhook-endpoints',
        body: (d) => `{"url":"https://example.com/deep","eventTypes":["media.ready"],"metadata":${d}}`,
      },
      { method: 'POST', url: `/v1/automation-runs/${runId}/status`, body: (d) => `{"status":"running","output":{"items":${d}}}` },
      {
        method: 'POST',
        url: '/v1/publish/jobs',
        body: (d) =>
          `{"dryRun":false,"plan":{"brandId":"${brandId}","text":"t","targets":[{"platform":"x","channelAccountId":"cha_x","settings":${d}}]}}`,
      },
      { method: 'POST', url: '/v1/agent/publish', body: (d) => `{"plan":{"brandId":"${brandId}","text":"t","settings":${d}}}` },
      {
        method: 'PUT',
        url: '/v1/channel-accounts',
        body: (d) => `{"brandId":"${brandId}","platform":"x","externalAccountId":"1","additionalSettings":${d}}`,
      },
      { method: 'PUT', url: '/v1/publishing-profiles', body: (d) => `{"brandId":"${brandId}","name":"p","channels":[{"settings":${d}}]}` },
      {
        method: 'POST',
        url: '/v1/automation-sources',
        body: (d) => `{"brandId":"${brandId}","kind":"external","name":"deep","config":${d}}`,
      },
    ];
    const before = await rowCounts();
    for (const c of cases) {
      const code = (await send(c.method, c.url, '[]')).json().error as string;
      assert.match(code, /^invalid_public_/, `${c.url} has its own validation code`);
      for (const depth of [3_000, 10_000]) {
        for (const deep of [deepText(depth), '['.repeat(depth) + ']'.repeat(depth)]) {
          const res = await send(c.method, c.url, c.body(deep));
          const where = `${c.method} ${c.url} depth ${depth}`;
          assert.equal(res.statusCode, 400, `${where}: ${res.body.slice(0, 200)}`);
          assert.equal(res.json().error, code, where);
          assert.match(res.json().fields[0].message, /nests deeper than 64 levels/, where);
        }
      }
    }
    assert.equal(await rowCounts(), before);
    const tool = await send('POST', '/api/v1/tools/utm-builder/build', `{"urls":${'['.repeat(3000)}${']'.repeat(3000)}}`, toolAuth);
    assert.equal(tool.statusCode, 400);
    assert.equal(tool.json().error.code, 'invalid_request');
  });
});
