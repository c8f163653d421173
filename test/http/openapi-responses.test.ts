import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TokenVault } from '../../src/modules/channels/token-vault.js';
import { fixture } from '../media/media-helpers.js';
import { createTestContext, type TestContext } from '../support/harness.js';

/**
 * Drives a broad set of routes, happy and error paths, with every answer checked against the served
 * OpenAPI document (test/support/openapi-check.ts): an undocumented status, media type, header or
 * body field fails the run. The whole suite can be run the same way with SERVICE_TEST_OPENAPI_CHECK=1.
 */
describe('live answers match the OpenAPI document', () => {
  let ctx: TestContext;
  let auth: Record<string, string>;
  let organizationId: string;
  let brandId: string;
  before(async () => {
    ctx = await createTestContext({ checkOpenApi: true });
    const org = await ctx.createOrganization();
    auth = org.auth;
    organizationId = org.organizationId;
    brandId = (await ctx.createBrand(org.organizationId, 'Acme')).brandId;
  });
  after(() => ctx?.close());

  const call = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = auth) => {
    const res = await ctx.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return res;
  };
  const problems = () => ctx.openApi!.problems;

  it('system, brands and authentication answers', async () => {
    for (const url of ['/v1/health/live', '/v1/health/ready', '/v1/health/storage', '/v1/openapi.json'])
      await call('GET', url, undefined, {});
    assert.equal((await call('GET', '/v1/brands')).statusCode, 200);
    assert.equal((await call('GET', `/v1/brands/${brandId}`)).statusCode, 200);
    assert.equal((await call('GET', '/v1/brands/brd_01ARZ3NDEKTSV4RRFFQ69G5FAV')).statusCode, 404);
    assert.equal((await call('GET', '/v1/brands/nope')).statusCode, 400);
    assert.equal((await call('GET', '/v1/brands', undefined, {})).statusCode, 401);
    assert.equal((await call('GET', '/v1/brands', undefined, { authorization: 'Bearer sk_wrong' })).statusCode, 401);
    assert.equal((await call('GET', '/v1/brands?limit=1000')).statusCode, 400);
    assert.deepEqual(problems(), []);
  });

  it('media: upload, duplicate, list, bytes, ranges and errors', async () => {
    const png = fixture('sample.png');
    const created = await call('POST', '/v1/media', { dataBase64: png.toString('base64'), brandId });
    assert.equal(created.statusCode, 201);
    assert.equal((await call('POST', '/v1/media', { dataBase64: png.toString('base64'), brandId })).statusCode, 200);
    const id = created.json().mediaLibraryItemId;
    assert.equal((await call('GET', '/v1/media')).statusCode, 200);
    assert.equal((await call('GET', '/v1/media?kind=pdf')).statusCode, 400);
    assert.equal((await call('GET', `/v1/media/${id}`)).statusCode, 200);
    const bytes = await call('GET', `/v1/media/${id}/content`);
    assert.equal(bytes.statusCode, 200);
    assert.equal(bytes.headers['content-type'], 'image/png');
    const range = await call('GET', `/v1/media/${id}/content`, undefined, { ...auth, range: 'bytes=0-9' });
    assert.equal(range.statusCode, 206);
    assert.equal((await call('POST', '/v1/media', { dataBase64: 'bm90IG1lZGlh' })).statusCode, 400);
    assert.equal((await call('POST', '/v1/media/import', { url: 'http://127.0.0.1/x.png' })).statusCode < 500, true);
    assert.deepEqual(problems(), []);
  });

  it('channels, profiles, publishing and its errors', async () => {
    const vault = new TokenVault(ctx.deps.encryptor, ctx.config);
    const ref = await vault.store(ctx.database.db, { organizationId, platform: 'x', kind: 'access', token: 'x-token', at: new Date() });
    const channel = await call('PUT', '/v1/channel-accounts', {
      organizationId,
      brandId,
      platform: 'x',
      externalAccountId: 'x-1',
      displayName: 'Acme on X',
      accessTokenRef: ref,
    });
    assert.equal(channel.statusCode, 201);
    const channelAccountId = channel.json().channelAccountId;
    assert.equal((await call('GET', '/v1/channel-accounts')).statusCode, 200);
    assert.equal((await call('GET', '/v1/providers/capabilities')).statusCode, 200);
    assert.equal((await call('GET', '/v1/publishing-profiles')).statusCode, 200);
    const plan = { brandId, text: 'Hello', media: [], targets: [{ platform: 'x', channelAccountId }] };
    assert.equal((await call('POST', '/v1/publish/plans/preview', plan)).statusCode, 200);
    assert.equal((await call('POST', '/v1/publish/plans/preview', { ...plan, extra: 1 })).statusCode, 400);
    assert.equal((await call('POST', '/v1/agent/publish', { plan })).statusCode, 200);
    const created = await call('POST', '/v1/publish/jobs', { plan, dryRun: false, idempotencyKey: 'k-1' });
    assert.equal(created.statusCode, 201);
    const replay = await call('POST', '/v1/publish/jobs', { plan, dryRun: false, idempotencyKey: 'k-1' });
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const job = created.json().publishJobId;
    assert.equal((await call('GET', `/v1/publish/jobs/${job}`)).statusCode, 200);
    assert.equal((await call('GET', '/v1/publish/jobs')).statusCode, 200);
    assert.equal((await call('POST', `/v1/publish/jobs/${job}/cancel`, { reason: 'changed my mind' })).statusCode, 200);
    assert.equal((await call('GET', '/v1/publish/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV')).statusCode, 404);
    const tooLong = await call('POST', '/v1/agent/publish', { plan: { ...plan, text: 'x'.repeat(500) }, dryRun: false });
    assert.equal(tooLong.statusCode, 422);
    assert.equal((await call('GET', '/v1/publish/slots')).statusCode < 500, true);
    const big = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...plan, text: 'x'.repeat(3 * 1024 * 1024) }),
    });
    assert.equal(big.statusCode, 413);
    const text = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { ...auth, 'content-type': 'text/plain' },
      payload: 'hi',
    });
    assert.equal(text.statusCode, 415);
    assert.deepEqual(problems(), []);
  });

  it('the other public areas list and refuse like the document says', async () => {
    for (const url of [
      '/v1/publish/batches',
      '/v1/assets',
      '/v1/webhook-endpoints',
      '/v1/social-comments',
      '/v1/analytics/snapshots',
      '/v1/automation-sources',
      '/v1/automation-runs',
    ])
      assert.equal((await call('GET', url)).statusCode, 200, url);
    assert.equal((await call('GET', '/v1/social-comments/cmt_01ARZ3NDEKTSV4RRFFQ69G5FAV')).statusCode < 500, true);
    assert.equal((await call('POST', '/v1/webhook-endpoints', { url: 'not a url' })).statusCode, 400);
    assert.equal((await call('POST', '/api/v1/tools/utm-builder/build', { url: 'https://example.com' }, {})).statusCode, 401);
    assert.deepEqual(problems(), []);
    // the run covered a broad share of the document
    assert.ok(ctx.openApi!.covered().size >= 40, `${ctx.openApi!.covered().size} operation/status pairs`);
  });
});
