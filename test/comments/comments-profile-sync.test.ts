/**
 * POST /v1/social-comments/sync-profile: the brand's most recent published targets (up to targetLimit),
 * each synced with commentsPerPost; a platform failing on one target is reported on that target while
 * the others still sync.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPlatformOrg, type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import type { Org } from '../publishing/publishing-harness.js';
import { audienceComment, call, type Published, publishedPost } from './comments-helpers.js';

interface TargetResult {
  postTargetId: string;
  platform: string;
  ok: boolean;
  fetched: number;
  created: number;
  updated: number;
  error: { code: string; message: string } | null;
}

describe('comment sync per profile', () => {
  let h: PlatformHarness;
  let org: Org;
  let oldest: Published;
  let x: Published;
  let threads: Published;
  let newest: Published;

  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
    org = await createPlatformOrg(h, 'profile sync');
    // published one after the other: oldest first
    oldest = await publishedPost(h, 'facebook_page', org);
    x = await publishedPost(h, 'x', org);
    threads = await publishedPost(h, 'threads', org);
    newest = await publishedPost(h, 'facebook_page', org);
    for (const [p, n] of [
      [oldest, 2],
      [x, 1],
      [threads, 2],
      [newest, 3],
    ] as const)
      for (let i = 0; i < n; i++) audienceComment(h, p, `${p.platform} comment ${i}`, undefined, `fan_${i}`);
  });
  after(() => h?.close());

  const syncProfile = (extra: Record<string, unknown> = {}) =>
    call(h, org, 'POST', '/v1/social-comments/sync-profile', {
      organizationId: org.organizationId,
      brandId: org.brandId,
      targetLimit: 3,
      commentsPerPost: 2,
      ...extra,
    });

  it('syncs the most recent targets up to targetLimit; one platform failure is reported on its target only', async () => {
    // X refuses the token on the conversation search, once
    h.x.failures.inject({ kind: 'expired_token', operation: 'search' });
    const r = await syncProfile({ dryRun: false });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mode, 'synced');
    const targets = r.body.targets as TargetResult[];
    assert.deepEqual(
      targets.map((t) => t.postTargetId),
      [newest.postTargetId, threads.postTargetId, x.postTargetId],
    );
    const [fb, th, xr] = targets as [TargetResult, TargetResult, TargetResult];
    assert.deepEqual([fb.ok, fb.fetched, fb.created, fb.error], [true, 2, 2, null], 'commentsPerPost caps each post');
    assert.deepEqual([th.ok, th.fetched, th.created, th.error], [true, 2, 2, null]);
    assert.equal(xr.ok, false);
    assert.equal(xr.fetched, 0);
    assert.equal(xr.error?.code, 'channel_account_not_connected');
    assert.deepEqual([r.body.fetched, r.body.created, r.body.updated], [4, 4, 0]);

    const stored = async (p: Published) =>
      (await call(h, org, 'GET', `/v1/social-comments?providerPostId=${p.providerPostId}`)).body.data.length as number;
    assert.equal(await stored(newest), 2);
    assert.equal(await stored(threads), 2);
    assert.equal(await stored(x), 0);
    assert.equal(await stored(oldest), 0, 'beyond targetLimit');

    // the next run (a dry run by default) reaches X again and stores nothing
    const again = await syncProfile();
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.mode, 'dry_run');
    const byTarget = new Map((again.body.targets as TargetResult[]).map((t) => [t.postTargetId, t]));
    assert.deepEqual(
      [byTarget.get(x.postTargetId)?.ok, byTarget.get(x.postTargetId)?.created],
      [true, 1],
      JSON.stringify(again.body.targets),
    );
    assert.equal(byTarget.get(newest.postTargetId)?.created, 0);
    assert.equal(await stored(x), 0);

    const wider = await syncProfile({ targetLimit: 10 });
    assert.equal(wider.body.targets.length, 4);
  });

  it('refuses an unknown brand or a profile of another brand', async () => {
    const noBrand = await syncProfile({ brandId: 'brd_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    assert.equal(noBrand.status, 404, JSON.stringify(noBrand.body));
    assert.equal(noBrand.body.error, 'brand_not_found');
    const noProfile = await syncProfile({ profileId: 'pprof_01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    assert.equal(noProfile.status, 400, JSON.stringify(noProfile.body));
    assert.equal(noProfile.body.error, 'invalid_public_social_comment_sync_request');
    const tooMany = await syncProfile({ targetLimit: 26 });
    assert.equal(tooMany.status, 400);
  });
});
