import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';
import { createToolUser, errorCode, post, QR_PATH, type ToolUser, toolKeys, UTM_PATH, urls, utmBody } from './tool-http.support.js';

describe('tool API authentication, tiers and request errors', () => {
  let ctx: TestContext;
  let pro: ToolUser;

  before(async () => {
    ctx = await createTestContext();
    pro = await createToolUser(ctx, 'pro');
  });
  after(() => ctx.close());

  it('401 authentication_required without credentials, in the tool envelope', async () => {
    const res = await post(ctx, UTM_PATH, {}, utmBody(urls(1)));
    assert.equal(res.statusCode, 401);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'object']);
    assert.equal(res.json().object, 'tool_api.error');
    assert.equal(errorCode(res), 'authentication_required');
    assert.equal(typeof res.json().error.message, 'string');
  });

  it('accepts Authorization: Bearer and X-API-Key', async () => {
    const bearer = await post(ctx, UTM_PATH, { authorization: `Bearer ${pro.apiKey}` }, utmBody(urls(1)));
    assert.equal(bearer.statusCode, 200);
    const header = await post(ctx, UTM_PATH, { 'x-api-key': pro.apiKey }, utmBody(urls(1)));
    assert.equal(header.statusCode, 200);
    assert.equal(header.json().quota.remaining, 998);
  });

  it('401 invalid_api_key for unknown, tampered, malformed, other-scheme and revoked keys', async () => {
    const tampered = `${pro.apiKey.slice(0, -1)}${pro.apiKey.endsWith('A') ? 'B' : 'A'}`;
    const unknownPrefix = `tk_ZZZZZZZZ${pro.apiKey.slice(11)}`;
    const attempts: Array<Record<string, string>> = [
      { authorization: `Bearer ${tampered}` },
      { authorization: `Bearer ${unknownPrefix}` },
      { 'x-api-key': 'not-a-key' },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    ];
    for (const headers of attempts) {
      const res = await post(ctx, UTM_PATH, headers, utmBody(urls(1)));
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(errorCode(res), 'invalid_api_key');
      assert.ok(!res.body.includes(pro.apiKey.slice(12)), 'no secret in the error');
    }
    const revoked = await createToolUser(ctx, 'pro');
    await toolKeys(ctx).revokeKey(revoked.apiKeyId, ctx.clock.now());
    const res = await post(ctx, UTM_PATH, revoked.auth, utmBody(urls(1)));
    assert.equal(res.statusCode, 401);
    assert.equal(errorCode(res), 'invalid_api_key');
  });

  it('a key remembered from its last request is checked in full again: secret, scope, body limit', async () => {
    const user = await createToolUser(ctx, 'pro', ['tools:utm-builder:build']);
    // this request reads the key and remembers it; the next ones are answered from memory
    assert.equal((await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)))).statusCode, 200);
    const tampered = `${user.apiKey.slice(0, -1)}${user.apiKey.endsWith('A') ? 'B' : 'A'}`;
    assert.equal(errorCode(await post(ctx, UTM_PATH, { authorization: `Bearer ${tampered}` }, utmBody(urls(1)))), 'invalid_api_key');
    assert.equal(errorCode(await post(ctx, QR_PATH, user.auth, { text: 'hi', format: 'svg' })), 'insufficient_scope');
    const tooLarge = await ctx.app.inject({
      method: 'POST',
      url: UTM_PATH,
      headers: { ...user.auth, 'content-type': 'application/json', 'content-length': String(256 * 1024 + 1) },
      payload: 'x'.repeat(256 * 1024 + 1),
    });
    assert.equal(errorCode(tooLarge), 'payload_too_large');
    assert.equal((await post(ctx, UTM_PATH, user.auth, utmBody(urls(1)))).json().quota.remaining, 998);
  });

  it('403 membership_required for Basic, and a tier change applies to the next request', async () => {
    const user = await createToolUser(ctx, 'basic');
    const refused = await post(ctx, QR_PATH, user.auth, { text: 'hi', format: 'svg' });
    assert.equal(refused.statusCode, 403);
    assert.equal(errorCode(refused), 'membership_required');
    const service = toolKeys(ctx);
    await service.setTier({ email: user.email, tier: 'pro' }, ctx.clock.now());
    const asPro = await post(ctx, QR_PATH, user.auth, { text: 'hi', format: 'svg' });
    assert.equal(asPro.statusCode, 200);
    assert.equal(asPro.headers['x-quota-limit'], '500');
    assert.equal(asPro.headers['x-ratelimit-limit'], '60');
    await service.setTier({ email: user.email, tier: 'max' }, ctx.clock.now());
    const asMax = await post(ctx, QR_PATH, user.auth, { text: 'hi', format: 'svg' });
    assert.equal(asMax.headers['x-quota-limit'], '5000');
    assert.equal(asMax.headers['x-ratelimit-limit'], '200');
    assert.equal(asMax.json().quota.remaining, 4998, 'usage carries over within the day');
    await service.setTier({ email: user.email, tier: 'basic' }, ctx.clock.now());
    assert.equal(errorCode(await post(ctx, QR_PATH, user.auth, { text: 'hi', format: 'svg' })), 'membership_required');
  });

  it('403 insufficient_scope; wildcard scopes grant tools', async () => {
    const utmOnly = await createToolUser(ctx, 'max', ['tools:utm-builder:build']);
    const res = await post(ctx, QR_PATH, utmOnly.auth, { text: 'hi' });
    assert.equal(res.statusCode, 403);
    assert.equal(errorCode(res), 'insufficient_scope');
    assert.equal((await post(ctx, UTM_PATH, utmOnly.auth, utmBody(urls(1)))).statusCode, 200);
    const all = await createToolUser(ctx, 'pro', ['tools:*']);
    assert.equal((await post(ctx, QR_PATH, all.auth, { text: 'hi', format: 'svg' })).statusCode, 200);
    const qrAll = await createToolUser(ctx, 'pro', ['tools:qrcode:*']);
    assert.equal((await post(ctx, QR_PATH, qrAll.auth, { text: 'hi', format: 'svg' })).statusCode, 200);
    assert.equal(errorCode(await post(ctx, UTM_PATH, qrAll.auth, utmBody(urls(1)))), 'insufficient_scope');
  });

  it('a scope never raises limits: authentication errors come before body checks', async () => {
    const basic = await createToolUser(ctx, 'basic', ['tools:*']);
    const res = await ctx.app.inject({
      method: 'POST',
      url: UTM_PATH,
      headers: { ...basic.auth, 'content-type': 'application/json' },
      payload: '{bad',
    });
    assert.equal(errorCode(res), 'membership_required');
  });

  it('400 invalid_request for malformed JSON, non-object bodies, missing bodies and other content types', async () => {
    const cases: Array<{ payload?: string; type?: string }> = [
      { payload: '{"urls": [', type: 'application/json' },
      { payload: '[1,2]', type: 'application/json' },
      { payload: '"text"', type: 'application/json' },
      { payload: 'null', type: 'application/json' },
      { payload: 'urls=x', type: 'application/x-www-form-urlencoded' },
      { payload: 'hello', type: 'text/plain' },
      {},
    ];
    for (const c of cases) {
      const headers: Record<string, string> = { ...pro.auth };
      if (c.type) headers['content-type'] = c.type;
      const res = await ctx.app.inject({ method: 'POST', url: UTM_PATH, headers, payload: c.payload });
      assert.equal(res.statusCode, 400, JSON.stringify(c));
      assert.equal(errorCode(res), 'invalid_request');
    }
    const missing = await post(ctx, UTM_PATH, pro.auth, { urls: ['https://a.example'], source: 's', medium: 'm' });
    assert.equal(errorCode(missing), 'invalid_request');
    assert.match(missing.json().error.message, /campaign/);
    const badQr = await post(ctx, QR_PATH, pro.auth, { text: 'a', size: 5000, format: 'png' });
    assert.equal(errorCode(badQr), 'invalid_request');
    assert.match(badQr.json().error.message, /size/);
  });

  it('400 when a batch has more URLs than the tier allows per request', async () => {
    const res = await post(ctx, UTM_PATH, pro.auth, utmBody(urls(101)));
    assert.equal(res.statusCode, 400);
    assert.match(res.json().error.message, /allows 100/);
    const max = await createToolUser(ctx, 'max');
    assert.equal((await post(ctx, UTM_PATH, max.auth, utmBody(urls(500)))).statusCode, 200);
    assert.equal((await post(ctx, UTM_PATH, max.auth, utmBody(urls(501)))).statusCode, 400);
  });

  it('413 payload_too_large above the tier byte limit (Pro 256 KiB, Max 1 MiB)', async () => {
    const big = utmBody(urls(1), { content: 'c', padding: 'x'.repeat(300 * 1024) });
    const proRes = await post(ctx, UTM_PATH, pro.auth, big);
    assert.equal(proRes.statusCode, 413);
    assert.equal(errorCode(proRes), 'payload_too_large');
    // the limit counts bytes, not characters: 100 Ki characters of 3 bytes each are 300 KiB
    const multiByte = await post(ctx, UTM_PATH, pro.auth, utmBody(urls(1), { padding: '€'.repeat(100 * 1024) }));
    assert.equal(multiByte.statusCode, 413);
    assert.equal(errorCode(multiByte), 'payload_too_large');
    const under = await post(ctx, UTM_PATH, pro.auth, utmBody(urls(1), { padding: '€'.repeat(80 * 1024) }));
    assert.equal(under.statusCode, 200, 'a body of 240 KiB in multi-byte characters is within the Pro limit');
    const max = await createToolUser(ctx, 'max');
    const maxRes = await post(ctx, UTM_PATH, max.auth, big);
    assert.equal(maxRes.statusCode, 200, 'unknown members are ignored; the body is within the Max limit');
    const huge = await post(ctx, UTM_PATH, max.auth, utmBody(urls(1), { padding: 'x'.repeat(1100 * 1024) }));
    assert.equal(huge.statusCode, 413);
    assert.equal(errorCode(huge), 'payload_too_large');
    const anonymous = await post(ctx, UTM_PATH, {}, big);
    assert.equal(errorCode(anonymous), 'authentication_required', 'credentials are checked before the body');
  });

  it('404 and 405 under /api/v1/tools use the tool envelope', async () => {
    const missing = await ctx.app.inject({ method: 'POST', url: '/api/v1/tools/unknown/run', headers: pro.auth });
    assert.equal(missing.statusCode, 404);
    assert.equal(errorCode(missing), 'not_found');
    const wrongMethod = await ctx.app.inject({ method: 'GET', url: UTM_PATH, headers: pro.auth });
    assert.equal(wrongMethod.json().object, 'tool_api.error');
  });

  it('listings show masked keys only', async () => {
    const service = toolKeys(ctx);
    // the last use is written within about a second of the request
    let list = await service.listKeys(pro.email);
    for (let i = 0; i < 100 && !list[0]?.lastUsedAt; i++) {
      await new Promise((r) => setTimeout(r, 100));
      list = await service.listKeys(pro.email);
    }
    assert.equal(list.length, 1);
    const entry = list[0];
    assert.ok(entry);
    assert.ok(!JSON.stringify(list).includes(pro.apiKey));
    assert.match(entry.maskedKey, /^tk_[A-Za-z0-9]{8}_…[A-Za-z0-9_-]{4}$/);
    assert.equal(entry.status, 'active');
    assert.ok(entry.lastUsedAt, 'last use is recorded');
  });

  it('documents both operations in OpenAPI under the Tools tag with the tool security schemes', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const path of [UTM_PATH, QR_PATH]) {
      const op = doc.paths[path].post;
      assert.deepEqual(op.tags, ['Tools']);
      assert.deepEqual(op.security, [{ toolApiKey: [] }]);
      assert.ok(op.responses['200'] && op.responses['429'] && op.responses['413']);
    }
    // a scheme of its own, not an http bearer a generated client would fill with the public key
    assert.deepEqual(
      { type: doc.components.securitySchemes.toolApiKey.type, in: doc.components.securitySchemes.toolApiKey.in },
      { type: 'apiKey', in: 'header' },
    );
  });
});
