import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { analyticsModule } from '../../src/modules/analytics/analytics.module.js';
import {
  call,
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishNow,
  settle,
  startPlatformHarness,
} from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';

describe('analytics', () => {
  let h: PlatformHarness;
  let org: Org;
  let other: Org;
  let xChannel: string;
  let xAccount: string;

  before(async () => {
    h = await startPlatformHarness();
    org = await createPlatformOrg(h, 'Analytics Org');
    other = await createPlatformOrg(h, 'Other Org');
    const c = await connectPlatform(h, org, 'x');
    xChannel = c.channelAccountId;
    xAccount = c.externalAccountId;
  });
  after(async () => {
    await h.close();
  });

  const xPost = (metrics: Partial<Record<string, number>>) => {
    const t = h.x.state.createTweet(xAccount, `post ${Math.random()}`);
    Object.assign(t.metrics, metrics);
    return t;
  };
  const syncBody = (providerPostId: string, extra: Record<string, unknown> = {}) => ({
    organizationId: org.organizationId,
    brandId: org.brandId,
    channelAccountId: xChannel,
    platform: 'x',
    providerPostId,
    ...extra,
  });

  it('x: a dry run (the default) reads public_metrics and stores nothing', async () => {
    const t = xPost({ like_count: 7, impression_count: 120 });
    const r = await call(h, org, 'POST', '/v1/analytics/sync', syncBody(t.id));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mode, 'dry_run');
    assert.equal(r.body.snapshot.metrics.likes, 7);
    assert.equal(r.body.snapshot.metrics.impressions, 120);
    assert.equal(r.body.snapshot.metrics.replies, 0);
    assert.equal(r.body.snapshot.source.apiVersion, 'x-api-v2');
    assert.match(r.body.snapshot.analyticsSnapshotId, /^asn_/);
    const list = await call(h, org, 'GET', '/v1/analytics/snapshots');
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 0);
  });

  it('x: dryRun false stores an append-only snapshot; an unreported metric is null, a reported 0 stays 0', async () => {
    const t = xPost({ like_count: 3 });
    delete (t.metrics as Partial<typeof t.metrics>).bookmark_count;
    const first = await call(h, org, 'POST', '/v1/analytics/sync', syncBody(t.id, { dryRun: false }));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.mode, 'stored');
    assert.equal(first.body.snapshot.metrics.bookmarks, null);
    assert.equal(first.body.snapshot.metrics.quotes, 0);
    assert.ok(!first.body.snapshot.source.metricNames.includes('bookmarks'));
    // the numbers grow through the simulator; a second sync is a second snapshot
    t.metrics.like_count = 10;
    const second = await call(h, org, 'POST', '/v1/analytics/sync', syncBody(t.id, { dryRun: false }));
    assert.equal(second.body.snapshot.metrics.likes, 10);
    const list = await call(h, org, 'GET', `/v1/analytics/snapshots?channelAccountId=${xChannel}`);
    const mine = list.body.data.filter((s: { providerPostId: string }) => s.providerPostId === t.id);
    assert.equal(mine.length, 2);
    assert.deepEqual(
      mine.map((s: { metrics: { likes: number } }) => s.metrics.likes),
      [10, 3],
    );
  });

  it('lists with a time range and cursor pages, newest first', async () => {
    const t = xPost({ like_count: 1 });
    for (const day of ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05']) {
      const r = await call(h, org, 'POST', '/v1/analytics/sync', syncBody(t.id, { dryRun: false, capturedAt: `${day}T00:00:00Z` }));
      assert.equal(r.status, 200);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q = `from=2026-01-02T00:00:00Z&to=2026-01-05T00:00:00Z&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const r = await call(h, org, 'GET', `/v1/analytics/snapshots?${q}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      for (const s of r.body.data) seen.push(s.capturedAt);
      cursor = r.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen, ['2026-01-04T00:00:00.000Z', '2026-01-03T00:00:00.000Z', '2026-01-02T00:00:00.000Z']);
  });

  it('answers invalid_public_analytics_snapshot_query for bad filters and cursors', async () => {
    for (const q of [
      'brandId=nope',
      'from=yesterday',
      'limit=0',
      'unknown=1',
      'cursor=abc',
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
    ]) {
      const r = await call(h, org, 'GET', `/v1/analytics/snapshots?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error, 'invalid_public_analytics_snapshot_query', q);
    }
  });

  it('validates the sync request', async () => {
    const t = xPost({});
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ ...syncBody(t.id), platform: 'tiktok' }, 400, 'invalid_request'],
      [{ ...syncBody(t.id), extra: 1 }, 400, 'invalid_request'],
      [{ ...syncBody(t.id), platform: 'youtube' }, 400, 'invalid_request'],
      [{ ...syncBody(t.id), organizationId: other.organizationId }, 400, 'invalid_request'],
      [{ ...syncBody(t.id), brandId: other.brandId }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const r = await call(h, org, 'POST', '/v1/analytics/sync', body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.error, code);
    }
    const missing = await call(h, org, 'POST', '/v1/analytics/sync', syncBody('999999999'));
    assert.equal(missing.status, 502);
    assert.equal(missing.body.error, 'provider_request_failed');
  });

  it('keeps organizations apart', async () => {
    const t = xPost({ like_count: 2 });
    // another organization cannot sync through this channel
    const r = await call(h, other, 'POST', '/v1/analytics/sync', {
      ...syncBody(t.id),
      organizationId: other.organizationId,
      brandId: other.brandId,
    });
    assert.equal(r.status, 404);
    assert.equal(r.body.error, 'channel_account_not_found');
    const list = await call(h, other, 'GET', '/v1/analytics/snapshots');
    assert.equal(list.body.data.length, 0);
    const filtered = await call(h, other, 'GET', `/v1/analytics/snapshots?channelAccountId=${xChannel}`);
    assert.equal(filtered.body.data.length, 0);
  });

  it('the periodic sweep reads published targets at their milestones, within the budget', async () => {
    await h.ctx.startWorker();
    const jobId = await publishNow(h, org, { platform: 'x', channelAccountId: xChannel }, 'measured post', []);
    const job = await settle(h, org, jobId);
    const target = job.targets[0]!;
    assert.equal(target.state, 'published');
    const db = h.ctx.database.db;
    const svc = analyticsModule(h.ctx.deps).service;
    // not an hour old yet: nothing is due
    assert.equal((await svc.sweep(10)).synced, 0);
    // published two hours ago: the 1 h reading is due once
    await db
      .updateTable('publish_targets')
      .set({ published_at: new Date(Date.now() - 2 * 3600_000) })
      .where('provider_post_id', '=', target.providerPostId)
      .execute();
    h.x.state.tweets.get(target.providerPostId)!.metrics.like_count = 5;
    const first = await svc.sweep(10);
    assert.equal(first.synced, 1);
    assert.equal((await svc.sweep(10)).synced, 0);
    const targetId = target.postTargetId as string;
    const list = await call(h, org, 'GET', `/v1/analytics/snapshots?postTargetId=${targetId}`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].metrics.likes, 5);
    // a day later the 24 h reading is due, but a channel that needs reconnecting is skipped
    await db
      .updateTable('publish_targets')
      .set({ published_at: new Date(Date.now() - 25 * 3600_000) })
      .where('provider_post_id', '=', target.providerPostId)
      .execute();
    // (the 1 h reading then was taken 23 hours ago)
    await db
      .updateTable('analytics_snapshots')
      .set({ captured_at: new Date(Date.now() - 23 * 3600_000) })
      .where('post_target_id', '=', targetId)
      .execute();
    await db.updateTable('channel_accounts').set({ state: 'reconnect_required' }).where('id', '=', xChannel).execute();
    const skipped = await svc.sweep(10);
    assert.equal(skipped.synced, 0);
    assert.ok(skipped.skippedChannels >= 1);
    await db.updateTable('channel_accounts').set({ state: 'connected' }).where('id', '=', xChannel).execute();
    // budget 0 per platform is refused by config; a budget of 1 reads one target per platform per sweep
    const second = await svc.sweep(1);
    assert.equal(second.synced, 1);
  });
});
