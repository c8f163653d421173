/**
 * Analytics per platform against the simulators, on posts published through the API: YouTube
 * statistics, Facebook post insights (media views replacing impressions), Pinterest Pin analytics,
 * X public metrics; then the periodic sync at 1 h, 24 h and 7 d after publish, within its budget, and
 * skipping channels that need reconnecting.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ANALYTICS_SYNC_JOB } from '../../src/modules/analytics/analytics.jobs.js';
import type { Platform } from '../../src/providers/provider.js';
import {
  call,
  connectPlatform,
  createPlatformOrg,
  type PlatformHarness,
  publishingFixture,
  publishNow,
  settle,
  startPlatformHarness,
} from '../publishing/platform-harness.js';
import type { LiveClock, Org } from '../publishing/publishing-harness.js';
import { type PublishedPost, publishPost, syncRequest } from './analytics-support.js';

type Published = PublishedPost;

describe('analytics: platforms and the periodic sync', () => {
  let h: PlatformHarness;
  let org: Org;
  const posts = new Map<string, Published>();

  const publish = async (platform: Platform, settings: (ext: string) => Record<string, unknown>, media?: [Buffer, string]) =>
    posts.set(platform, await publishPost(h, org, platform, settings, media));

  const sync = (p: Published, extra: Record<string, unknown> = {}) =>
    call(h, org, 'POST', '/v1/analytics/sync', syncRequest(org, p, extra));

  before(async () => {
    h = await startPlatformHarness();
    org = await createPlatformOrg(h, 'Platforms');
    await h.ctx.startWorker();
    const photo = publishingFixture('photo-640.jpg');
    const clip = publishingFixture('clip-640x360-5s.mp4');
    await publish('facebook_page', () => ({}));
    await publish('x', () => ({}));
    await publish('youtube', () => ({ title: 'Analytics clip', privacyStatus: 'public' }), [clip, 'a.mp4']);
    await publish('pinterest', (ext) => ({ boardId: String(h.pinterest.state.boardsOf(ext)[0]?.id), title: 'Pin' }), [photo, 'a.jpg']);
  });
  after(() => h?.close());

  it('youtube: videos.list statistics; a hidden like count is null', async () => {
    const p = posts.get('youtube')!;
    const stats = h.youtube.state.videos.get(p.providerPostId)!.resource.statistics;
    stats.viewCount = '1500';
    stats.commentCount = '4';
    delete stats.likeCount;
    const r = await sync(p, { dryRun: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.snapshot.metrics, { views: 1500, likes: null, comments: 4, favorites: 0 });
    assert.deepEqual(r.body.snapshot.source, {
      metricNames: ['viewCount', 'likeCount', 'commentCount', 'favoriteCount'],
      apiVersion: 'youtube/v3',
    });
    assert.equal(r.body.snapshot.postTargetId, p.postTargetId);
  });

  it('facebook_page: post insights, impressions read as media views', async () => {
    const p = posts.get('facebook_page')!;
    const post = h.meta.state.get(p.providerPostId);
    assert.ok(post && post.kind === 'post');
    Object.assign(post.stats, { views: 300, reach: 210, clicks: 12, likes: 9 });
    const r = await sync(p);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mode, 'dry_run');
    assert.deepEqual(r.body.snapshot.metrics, { views: 300, viewers: 210, clicks: 12, reactions: 9 });
    assert.ok(r.body.snapshot.source.metricNames.includes('post_media_view'));
    assert.ok(!r.body.snapshot.source.metricNames.includes('post_impressions'));
  });

  it('pinterest: Pin analytics summary', async () => {
    const p = posts.get('pinterest')!;
    Object.assign(h.pinterest.state.pins.get(p.providerPostId)!.metrics, { IMPRESSION: 80, SAVE: 3, PIN_CLICK: 5, OUTBOUND_CLICK: 1 });
    const r = await sync(p, { dryRun: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.snapshot.metrics, { views: 80, saves: 3, pin_clicks: 5, outbound_clicks: 1 });
    assert.equal(r.body.snapshot.source.apiVersion, 'pinterest/v5');
  });

  it('refuses a post target that is not the given post', async () => {
    const r = await sync(posts.get('x')!, { postTargetId: posts.get('youtube')!.postTargetId });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'invalid_public_analytics_sync_request');
  });

  it('the periodic sync reads each target at 1 h, 24 h and 7 d after publish, once each', async () => {
    const count = async () =>
      (await h.ctx.database.db.selectFrom('analytics_snapshots').select('id').where('trigger', '=', 'schedule').execute()).length;
    const start = Date.now();
    // before the first checkpoint nothing is due
    let r = await h.ctx.root.areas.analytics.sync.run(new Date(start));
    assert.equal(r.synced, 0);
    const at = (ms: number) => new Date(start + ms);
    // the worker's cron job, run at 1 h 1 min after publish by the service clock
    const job = h.ctx.root.areas.analytics.jobs.find((d) => d.name === ANALYTICS_SYNC_JOB)!;
    assert.equal(job.cron, '*/10 * * * *');
    const clock = h.ctx.clock as unknown as LiveClock;
    clock.set(at(61 * 60_000));
    try {
      await job.handler({} as never, {} as never);
    } finally {
      clock.set(Date.now());
    }
    assert.equal(await count(), 4);
    r = await h.ctx.root.areas.analytics.sync.run(at(70 * 60_000));
    assert.equal(r.synced, 0, 'a checkpoint is read once');
    r = await h.ctx.root.areas.analytics.sync.run(at(24 * 3_600_000 + 60_000));
    assert.equal(r.synced, 4);
    // missed runs catch up with one read
    r = await h.ctx.root.areas.analytics.sync.run(at(7.5 * 24 * 3_600_000));
    assert.equal(r.synced, 4);
    r = await h.ctx.root.areas.analytics.sync.run(at(7.5 * 24 * 3_600_000 + 600_000));
    assert.equal(r.synced, 0);
    // long after the last checkpoint nothing is read any more
    r = await h.ctx.root.areas.analytics.sync.run(at(30 * 24 * 3_600_000));
    assert.equal(r.synced, 0);
    assert.equal(await count(), 12);
    const list = await call(h, org, 'GET', `/v1/analytics/snapshots?postTargetId=${posts.get('x')!.postTargetId}`);
    assert.equal(list.body.data.length, 3);
  });

  it('the periodic sync keeps to its budget and skips channels that need reconnecting', async () => {
    const other = await createPlatformOrg(h, 'Budget');
    const t0 = Date.now();
    const x = await connectPlatform(h, other, 'x');
    const jobs: string[] = [];
    for (let i = 0; i < 3; i++) {
      jobs.push(await publishNow(h, other, { platform: 'x', channelAccountId: x.channelAccountId }, `budget ${i} ${Date.now()}`, []));
    }
    for (const j of jobs) await settle(h, other, j);
    const fb = await connectPlatform(h, other, 'facebook_page');
    const fbJob = await publishNow(h, other, { platform: 'facebook_page', channelAccountId: fb.channelAccountId }, `fb ${Date.now()}`, []);
    await settle(h, other, fbJob);
    await h.ctx.database.db
      .updateTable('channel_accounts')
      .set({ state: 'reconnect_required' })
      .where('id', '=', fb.channelAccountId)
      .execute();
    {
      const at = new Date(t0 + 2 * 3_600_000);
      const first = await h.ctx.root.areas.analytics.sync.run(at, { budgetPerPlatform: 2 });
      assert.equal(first.synced, 2, JSON.stringify(first));
      assert.equal(first.overBudget, 1);
      assert.equal(first.skippedReconnect, 1);
      // a platform answering 429 is left for the next run
      h.x.failures.inject({ operation: 'tweets_lookup', kind: 'rate_limit', retryAfterSeconds: 60 });
      const limited = await h.ctx.root.areas.analytics.sync.run(new Date(at.getTime() + 300_000), {
        budgetPerPlatform: 2,
      });
      assert.equal(limited.synced, 0, JSON.stringify(limited));
      assert.deepEqual(limited.rateLimited, ['x']);
      const second = await h.ctx.root.areas.analytics.sync.run(new Date(at.getTime() + 600_000), {
        budgetPerPlatform: 2,
      });
      assert.equal(second.synced, 1, JSON.stringify(second));
      assert.equal(second.skippedReconnect, 1);
    }
    const fbSnaps = await call(h, other, 'GET', `/v1/analytics/snapshots?channelAccountId=${fb.channelAccountId}`);
    assert.deepEqual(fbSnaps.body.data, []);
  });
});
