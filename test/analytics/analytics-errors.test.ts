/**
 * Analytics failure paths on YouTube, Facebook Pages and Pinterest against their simulators: each
 * platform's own error bodies become our codes (token refused -> 409 reconnect, rate limit or spent quota
 * -> 429 with Retry-After, outage -> 502, unknown post -> 400), an unreported metric is null (never 0),
 * and the periodic sync marks a channel whose token is refused reconnect_required and then skips it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FailureQueue, FailureRule } from '../../src/sandbox/simulator-kit.js';
import { createPlatformOrg, type PlatformHarness, publishingFixture, startPlatformHarness } from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';
import { type PublishedPost, publishPost, syncRequest } from './analytics-support.js';

type P = 'youtube' | 'facebook_page' | 'pinterest';
type Published = PublishedPost;

describe('analytics: provider failures on youtube, facebook_page and pinterest', () => {
  let h: PlatformHarness;
  let org: Org;
  const posts = new Map<P, Published>();

  /** the simulator's failure switches and the operation serving the metrics read */
  const failuresOf = (p: P): [FailureQueue, string] =>
    p === 'youtube'
      ? [h.youtube.failures, 'videos_list']
      : p === 'pinterest'
        ? [h.pinterest.failures, 'pin_analytics']
        : [h.meta.failures, 'read'];
  const inject = (p: P, rule: Omit<FailureRule, 'operation'>) => {
    const [q, operation] = failuresOf(p);
    q.inject({ ...rule, operation });
  };

  const publish = async (platform: P, settings: (ext: string) => Record<string, unknown>, media?: [Buffer, string]) =>
    posts.set(platform, await publishPost(h, org, platform, settings, media));

  async function sync(p: Published, extra: Record<string, unknown> = {}) {
    const res = await h.ctx.app.inject({
      method: 'POST',
      url: '/v1/analytics/sync',
      headers: org.auth,
      payload: syncRequest(org, p, extra),
    });
    return { status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] };
  }

  before(async () => {
    h = await startPlatformHarness();
    org = await createPlatformOrg(h, 'Analytics errors');
    await h.ctx.startWorker();
    await publish('facebook_page', () => ({}));
    await publish('youtube', () => ({ title: 'Errors clip', privacyStatus: 'public' }), [
      publishingFixture('clip-640x360-5s.mp4'),
      'e.mp4',
    ]);
    await publish('pinterest', (ext) => ({ boardId: String(h.pinterest.state.boardsOf(ext)[0]?.id), title: 'Pin' }), [
      publishingFixture('photo-640.jpg'),
      'e.jpg',
    ]);
  });
  after(() => h?.close());

  for (const platform of ['youtube', 'facebook_page', 'pinterest'] as const) {
    it(`${platform}: platform error bodies answer our codes`, async () => {
      const p = posts.get(platform)!;
      inject(platform, { kind: 'expired_token' });
      const refused = await sync(p);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.equal(refused.body.error, 'channel_account_not_connected');
      assert.equal(refused.body.providerCategory, 'auth_expired');

      inject(platform, { kind: 'rate_limit', retryAfterSeconds: 30 });
      const limited = await sync(p);
      assert.equal(limited.status, 429, JSON.stringify(limited.body));
      assert.equal(limited.body.error, 'provider_rate_limited');
      assert.ok(Number(limited.retryAfter) > 0, `retry-after ${limited.retryAfter}`);

      inject(platform, { kind: 'server_error', times: 10 });
      const down = await sync(p);
      failuresOf(platform)[0].clear();
      assert.equal(down.status, 502, JSON.stringify(down.body));
      assert.equal(down.body.error, 'provider_request_failed');
      assert.ok(!JSON.stringify(down.body).includes('providerResponse'), 'the raw platform body stays inside');

      const unknown = await sync(p, { providerPostId: platform === 'facebook_page' ? '999_999' : 'nope404', postTargetId: null });
      assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
      assert.equal(unknown.body.error, 'invalid_public_analytics_sync_request');

      // the channel itself is untouched by a refused read through the API
      const ok = await sync(p);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const stored = await h.ctx.database.db
        .selectFrom('analytics_snapshots')
        .select('id')
        .where('post_target_id', '=', p.postTargetId)
        .execute();
      assert.equal(stored.length, 0, 'failed reads and dry runs store nothing');
    });
  }

  it('youtube: spent daily quota (403 quotaExceeded) is a 429 until the quota resets', async () => {
    inject('youtube', { kind: 'rate_limit' });
    const r = await sync(posts.get('youtube')!);
    assert.equal(r.status, 429, JSON.stringify(r.body));
    assert.equal(r.body.error, 'provider_rate_limited');
    assert.equal(r.body.providerCode, 'quotaExceeded');
    assert.ok(Number(r.retryAfter) > 60, `retry-after ${r.retryAfter}`);
  });

  it('a metric the platform did not report is null, never 0', async () => {
    const fb = posts.get('facebook_page')!;
    const post = h.meta.state.get(fb.providerPostId);
    assert.ok(post && post.kind === 'post');
    Object.assign(post.stats, { views: 40, reach: 30, likes: 2 });
    delete (post.stats as Partial<typeof post.stats>).clicks;
    const f = await sync(fb);
    assert.equal(f.status, 200, JSON.stringify(f.body));
    assert.deepEqual(f.body.snapshot.metrics, { views: 40, viewers: 30, clicks: null, reactions: 2 });

    const pin = posts.get('pinterest')!;
    const m = h.pinterest.state.pins.get(pin.providerPostId)!.metrics as Record<string, number>;
    Object.assign(m, { IMPRESSION: 9, SAVE: 0, PIN_CLICK: 1 });
    delete m.OUTBOUND_CLICK;
    const pr = await sync(pin);
    assert.equal(pr.status, 200, JSON.stringify(pr.body));
    assert.deepEqual(pr.body.snapshot.metrics, { views: 9, saves: 0, pin_clicks: 1, outbound_clicks: null });

    const yt = posts.get('youtube')!;
    const stats = h.youtube.state.videos.get(yt.providerPostId)!.resource.statistics;
    stats.viewCount = '12';
    stats.likeCount = '0';
    delete stats.commentCount;
    const yr = await sync(yt);
    assert.equal(yr.status, 200, JSON.stringify(yr.body));
    assert.equal(yr.body.snapshot.metrics.likes, 0);
    assert.equal(yr.body.snapshot.metrics.comments, null);
  });

  it('the periodic sync marks a channel whose token is refused reconnect_required and skips it afterwards', async () => {
    const pin = posts.get('pinterest')!;
    const at = new Date(Math.max(...[...posts.values()].map((p) => p.publishedAt)) + 2 * 3_600_000);
    inject('pinterest', { kind: 'expired_token' });
    const first = await h.ctx.root.areas.analytics.sync.run(at);
    assert.equal(first.failed, 1, JSON.stringify(first));
    assert.equal(first.synced, 2, JSON.stringify(first));
    const channels = await h.ctx.app.inject({ method: 'GET', url: '/v1/channel-accounts?platform=pinterest', headers: org.auth });
    const channel = channels.json().data.find((c: { channelAccountId: string }) => c.channelAccountId === pin.channelAccountId);
    assert.equal(channel.state, 'reconnect_required', channels.body);

    const later = await h.ctx.root.areas.analytics.sync.run(new Date(at.getTime() + 600_000));
    assert.equal(later.skippedReconnect, 1, JSON.stringify(later));
    assert.equal(later.synced, 0);
    assert.equal(h.pinterest.ledger.count('pin_analytics') > 0, true);
    const snaps = await h.ctx.database.db
      .selectFrom('analytics_snapshots')
      .select('id')
      .where('channel_account_id', '=', pin.channelAccountId)
      .where('trigger', '=', 'schedule')
      .execute();
    assert.equal(snaps.length, 0);
  });
});
