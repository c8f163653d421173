/**
 * Comment sync past the first page on every comment platform: the platform's pagination is followed up
 * to `limit` (Graph `paging.cursors.after` pages of 25, X `next_token` with short pages), and `since`
 * keeps only newer comments even when the older ones fill whole pages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type PlatformHarness, startPlatformHarness } from '../publishing/platform-harness.js';
import { audienceComment, call, type Published, publishedPost, syncBody } from './comments-helpers.js';

const OLD = 30;
const NEW = 5;

describe('comment sync pagination and since, per platform', () => {
  let h: PlatformHarness;
  before(async () => {
    h = await startPlatformHarness();
    await h.ctx.startWorker();
    // X recent search answers short pages here, so following next_token is needed
    h.x.state.searchPageLimit = 10;
  });
  after(() => h?.close());

  /** OLD comments written two hours ago, then NEW ones now; answers the new ones' ids. */
  function seed(p: Published): string[] {
    const twoHoursAgo = Date.now() - 2 * 3_600_000;
    for (let i = 0; i < OLD; i++) {
      const id = audienceComment(h, p, `old comment ${i}`, undefined, `old_fan_${i}`);
      if (p.platform === 'x') h.x.state.tweets.get(id)!.createdAt = new Date(twoHoursAgo + i * 1000).toISOString();
      else {
        const o = h.meta.state.get(id)!;
        (o as { createdAt: number }).createdAt = twoHoursAgo + i * 1000;
      }
    }
    return Array.from({ length: NEW }, (_, i) => audienceComment(h, p, `new comment ${i}`, undefined, `new_fan_${i}`));
  }

  for (const platform of ['facebook_page', 'instagram_business', 'instagram_standalone', 'threads', 'x'] as const) {
    it(`${platform}: follows the pages up to limit and honours since`, async () => {
      const p = await publishedPost(h, platform);
      const fresh = seed(p);
      const listCalls = () => (platform === 'x' ? h.x.ledger.count('search') : h.meta.ledger.count('comments_list'));

      let calls = listCalls();
      const all = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { limit: 100 }));
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.equal(all.body.fetched, OLD + NEW, JSON.stringify(all.body.comments.length));
      assert.equal(new Set(all.body.comments.map((c: { providerCommentId: string }) => c.providerCommentId)).size, OLD + NEW);
      assert.ok(listCalls() - calls >= 2, `${platform} read more than one page`);

      const capped = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { limit: 28, dryRun: false }));
      assert.equal(capped.status, 200, JSON.stringify(capped.body));
      assert.equal(capped.body.fetched, 28);
      assert.equal(capped.body.created, 28);
      const stored = (await call(h, p.org, 'GET', `/v1/social-comments?providerPostId=${p.providerPostId}&limit=100`)).body.data;
      assert.equal(stored.length, 28);

      // since: only the comments written in the last hour, however many older pages there are
      const since = new Date(Date.now() - 3_600_000).toISOString();
      calls = listCalls();
      const recent = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { since, limit: 3 }));
      assert.equal(recent.status, 200, JSON.stringify(recent.body));
      assert.equal(recent.body.fetched, 3, JSON.stringify(recent.body.comments));
      for (const c of recent.body.comments) assert.ok(fresh.includes(c.providerCommentId), `${c.body} is newer than since`);
      const recentAll = await call(h, p.org, 'POST', '/v1/social-comments/sync', syncBody(p, { since, limit: 100, dryRun: false }));
      assert.deepEqual(recentAll.body.comments.map((c: { providerCommentId: string }) => c.providerCommentId).sort(), [...fresh].sort());
      assert.ok(listCalls() > calls);
    });
  }
});
