/**
 * Analytics on X against the X simulator: dry run by default, stored append-only snapshots, unreported
 * metrics as null, list filters and cursor pages, organization isolation, provider failures as answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, connectPlatform, createPlatformOrg, type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';

describe('analytics: X', () => {
  let h: PlatformHarness;
  let org: Org;
  let other: Org;
  let x: { channelAccountId: string; externalAccountId: string };
  let postId: string;

  const syncBody = (extra: Record<string, unknown> = {}) => ({
    organizationId: org.organizationId,
    brandId: org.brandId,
    channelAccountId: x.channelAccountId,
    platform: 'x',
    providerPostId: postId,
    ...extra,
  });

  before(async () => {
    h = await startPlatformHarness();
    org = await createPlatformOrg(h, 'Analytics');
    other = await createPlatformOrg(h, 'Other');
    x = await connectPlatform(h, org, 'x');
    const tweet = h.x.state.createTweet(x.externalAccountId, 'numbers post');
    Object.assign(tweet.metrics, { like_count: 7, retweet_count: 2, impression_count: 120 });
    postId = tweet.id;
  });
  after(() => h.close());

  it('answers a dry run by default and stores nothing', async () => {
    const r = await call(h, org, 'POST', '/v1/analytics/sync', syncBody());
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mode, 'dry_run');
    assert.deepEqual(r.body.snapshot.metrics, { views: 120, likes: 7, replies: 0, reposts: 2, quotes: 0, bookmarks: 0 });
    assert.equal(r.body.snapshot.source.apiVersion, 'x/2');
    assert.ok(r.body.snapshot.source.metricNames.includes('impression_count'));
    const list = await call(h, org, 'GET', '/v1/analytics/snapshots');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data, []);
    assert.equal(h.x.ledger.count('tweets_lookup'), 1);
  });

  it('stores snapshots append-only; a second read is a new snapshot with grown numbers', async () => {
    const first = await call(h, org, 'POST', '/v1/analytics/sync', syncBody({ dryRun: false }));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.mode, 'stored');
    assert.match(first.body.snapshot.analyticsSnapshotId, /^asnap_[0-9A-HJKMNP-TV-Z]{26}$/);
    h.x.state.tweets.get(postId)!.metrics.like_count += 5;
    const second = await call(h, org, 'POST', '/v1/analytics/sync', syncBody({ dryRun: false }));
    assert.equal(second.body.snapshot.metrics.likes, 12);
    const list = await call(h, org, 'GET', `/v1/analytics/snapshots?channelAccountId=${x.channelAccountId}`);
    assert.equal(list.body.data.length, 2);
    // newest first, the first read kept as it was
    assert.equal(list.body.data[0].analyticsSnapshotId, second.body.snapshot.analyticsSnapshotId);
    assert.equal(list.body.data[1].metrics.likes, 7);
    assert.deepEqual(Object.keys(list.body.data[0]).sort(), [
      'analyticsSnapshotId',
      'brandId',
      'capturedAt',
      'channelAccountId',
      'metrics',
      'organizationId',
      'platform',
      'postTargetId',
      'providerPostId',
      'source',
    ]);
    await assert.rejects(
      h.ctx.database.db
        .updateTable('analytics_snapshots')
        .set({ trigger: 'x' })
        .where('organization_id', '=', org.organizationId)
        .execute(),
      /append-only/,
    );
  });

  it('reports a metric X did not return as null, never 0', async () => {
    const t = h.x.state.createTweet(x.externalAccountId, 'old post without impressions');
    delete (t.metrics as Partial<typeof t.metrics>).impression_count;
    const r = await call(h, org, 'POST', '/v1/analytics/sync', syncBody({ providerPostId: t.id }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.snapshot.metrics.views, null);
    assert.equal(r.body.snapshot.metrics.likes, 0);
  });

  it('filters by time range and platform and pages with a cursor', async () => {
    for (const at of ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z']) {
      const r = await call(h, org, 'POST', '/v1/analytics/sync', syncBody({ dryRun: false, capturedAt: at }));
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const range = await call(h, org, 'GET', '/v1/analytics/snapshots?from=2026-01-01T12:00:00Z&to=2026-01-03T00:00:00Z');
    assert.deepEqual(
      range.body.data.map((s: { capturedAt: string }) => s.capturedAt),
      ['2026-01-02T00:00:00.000Z'],
    );
    const p1 = await call(h, org, 'GET', '/v1/analytics/snapshots?platform=x&limit=2');
    assert.equal(p1.body.data.length, 2);
    assert.ok(p1.body.nextCursor);
    const p2 = await call(h, org, 'GET', `/v1/analytics/snapshots?platform=x&limit=2&cursor=${p1.body.nextCursor}`);
    assert.equal(p2.body.data.length, 2);
    const p3 = await call(h, org, 'GET', `/v1/analytics/snapshots?platform=x&limit=2&cursor=${p2.body.nextCursor}`);
    assert.equal(p3.body.data.length, 1);
    assert.equal(p3.body.nextCursor, null);
    const ids = [...p1.body.data, ...p2.body.data, ...p3.body.data].map((s: { analyticsSnapshotId: string }) => s.analyticsSnapshotId);
    assert.equal(new Set(ids).size, 5);
    // newest capture first across the pages (synced rows written in any order)
    const captured = [...p1.body.data, ...p2.body.data, ...p3.body.data].map((s: { capturedAt: string }) => s.capturedAt);
    assert.deepEqual(captured, [...captured].sort().reverse());
    // a cursor whose key is not a (time, id) key is refused like any other bad cursor
    const forged = Buffer.from(
      JSON.stringify({ k: 'not-a-key', f: JSON.parse(Buffer.from(p1.body.nextCursor, 'base64url').toString()).f }),
    ).toString('base64url');
    const refused = await call(h, org, 'GET', `/v1/analytics/snapshots?platform=x&limit=2&cursor=${forged}`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_public_analytics_snapshot_query');
    // a cursor is bound to its filters
    const bad = await call(h, org, 'GET', `/v1/analytics/snapshots?platform=youtube&cursor=${p1.body.nextCursor}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'invalid_public_analytics_snapshot_query');
  });

  it('refuses a bad query with invalid_public_analytics_snapshot_query', async () => {
    for (const q of ['from=yesterday', 'limit=0', 'platform=tiktok', 'unknown=1', 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z']) {
      const r = await call(h, org, 'GET', `/v1/analytics/snapshots?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error, 'invalid_public_analytics_snapshot_query', q);
    }
  });

  it('keeps organizations apart', async () => {
    const list = await call(h, other, 'GET', '/v1/analytics/snapshots');
    assert.deepEqual(list.body.data, []);
    const r = await call(h, other, 'POST', '/v1/analytics/sync', {
      ...syncBody(),
      organizationId: other.organizationId,
      brandId: other.brandId,
    });
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'channel_account_not_found');
    const foreignOrg = await call(h, other, 'POST', '/v1/analytics/sync', syncBody());
    assert.equal(foreignOrg.status, 404);
    assert.equal(foreignOrg.body.error, 'organization_not_found');
  });

  it('answers bad sync requests and platform failures with their codes', async () => {
    const noScope = await h.ctx.createOrganization({ name: 'Reader', scopes: ['analytics:read'] });
    const forbidden = await h.ctx.app.inject({ method: 'POST', url: '/v1/analytics/sync', headers: noScope.auth, payload: syncBody() });
    assert.equal(forbidden.statusCode, 401);
    assert.equal(forbidden.json().error, 'public_api_token_forbidden');
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ platform: 'tiktok' }, 400, 'invalid_public_analytics_sync_request'],
      [{ platform: 'youtube' }, 400, 'invalid_public_analytics_sync_request'],
      [{ extra: 1 }, 400, 'invalid_public_analytics_sync_request'],
      [{ dryRun: 'no' }, 400, 'invalid_public_analytics_sync_request'],
      [{ providerPostId: '999999' }, 400, 'invalid_public_analytics_sync_request'],
      [{ brandId: 'brd_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 404, 'brand_not_found'],
      [{ postTargetId: 'ptg_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 400, 'invalid_public_analytics_sync_request'],
    ];
    for (const [extra, status, code] of cases) {
      const r = await call(h, org, 'POST', '/v1/analytics/sync', syncBody(extra));
      assert.equal(r.status, status, JSON.stringify([extra, r.body]));
      assert.equal(r.body.error, code, JSON.stringify(extra));
    }
    h.x.failures.inject({ operation: 'tweets_lookup', kind: 'rate_limit', retryAfterSeconds: 30 });
    const limited = await call(h, org, 'POST', '/v1/analytics/sync', syncBody());
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.equal(limited.body.error, 'provider_rate_limited');
    h.x.failures.inject({ operation: 'tweets_lookup', kind: 'expired_token' });
    const refused = await call(h, org, 'POST', '/v1/analytics/sync', syncBody());
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error, 'channel_account_not_connected');
  });

  it('has no sandbox control route outside sandbox mode', async () => {
    const r = await h.ctx.app.inject({
      method: 'POST',
      url: '/sandbox/_control/metrics',
      payload: { platform: 'x', providerPostId: postId, metrics: { likes: 1 } },
    });
    assert.equal(r.statusCode, 404);
  });
});
