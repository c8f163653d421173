/**
 * Sandbox mode over real HTTP: POST /sandbox/_control/metrics makes an X post's numbers grow in the
 * simulator this process serves, and analytics sync reads them through the adapter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { X_SCOPES } from '../../src/providers/x/x.rules.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';

describe('analytics in sandbox mode', () => {
  let ctx: TestContext;
  let base: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ env: { SERVICE_PROVIDER_MODE: 'sandbox', SERVICE_PUBLIC_BASE_URL: base } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
  });
  after(() => ctx.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('control metrics add to what the simulator reports and sync reads them', async () => {
    const org = await ctx.createOrganization({ name: 'Sandbox analytics' });
    const { brandId } = await ctx.createBrand(org.organizationId, 'Brand');
    const x = ctx.root.sandbox!.x;
    const user = x.user();
    const ref = await ctx.root.shared.vault.store(ctx.database.db, {
      organizationId: org.organizationId,
      platform: 'x',
      kind: 'access',
      token: x.issueTokens(user.id, X_SCOPES).accessToken,
      at: new Date(),
    });
    const put = await fetch(`${base}/v1/channel-accounts`, {
      method: 'PUT',
      headers: { ...org.auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        organizationId: org.organizationId,
        platform: 'x',
        externalAccountId: user.id,
        displayName: 'X',
        accessTokenRef: ref,
        brandId,
      }),
    });
    assert.ok(put.status === 201 || put.status === 200, await put.clone().text());
    const channelAccountId = ((await put.json()) as { channelAccountId: string }).channelAccountId;
    const tweet = x.createTweet(user.id, 'sandbox numbers');

    const grow = await post('/sandbox/_control/metrics', { platform: 'x', providerPostId: tweet.id, metrics: { views: 120, likes: 7 } });
    assert.equal(grow.status, 200, await grow.clone().text());
    await post('/sandbox/_control/metrics', { platform: 'x', providerPostId: tweet.id, metrics: { like_count: 3 } });

    const sync = await post(
      '/v1/analytics/sync',
      { organizationId: org.organizationId, brandId, channelAccountId, platform: 'x', providerPostId: tweet.id, dryRun: false },
      org.auth,
    );
    assert.equal(sync.status, 200, await sync.clone().text());
    const body = (await sync.json()) as { mode: string; snapshot: { metrics: Record<string, number | null> } };
    assert.equal(body.mode, 'stored');
    assert.equal(body.snapshot.metrics.views, 120);
    assert.equal(body.snapshot.metrics.likes, 10);

    const unknownPost = await post('/sandbox/_control/metrics', { platform: 'x', providerPostId: '1', metrics: { likes: 1 } });
    assert.equal(unknownPost.status, 404);
    const unknownMetric = await post('/sandbox/_control/metrics', { platform: 'x', providerPostId: tweet.id, metrics: { saves: 1 } });
    assert.equal(unknownMetric.status, 400);
    const badPlatform = await post('/sandbox/_control/metrics', { platform: 'tiktok', providerPostId: tweet.id, metrics: { likes: 1 } });
    assert.equal(badPlatform.status, 400);
  });
});
