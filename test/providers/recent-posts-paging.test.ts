/**
 * Crash reconciliation walks an account's newest-first post list while the worker may still be posting
 * to the same account: a post must count once however the list shifts under the walk.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findInListing, type ListedPost, type ListingPages, matchRecentPost } from '../../src/providers/shared/recent-posts.js';
import { type RunningMetaSimulator, startMetaSimulator } from '../../src/sandbox/simulators/meta.simulator.js';
import { metaPageTokens } from '../support/simulators.js';

const input = {
  text: 'crash post 1-4',
  since: new Date(Date.now() - 60_000),
  until: new Date(Date.now() + 60_000),
  excludeIds: [],
  mediaKinds: [],
  settings: {},
};

/** A newest-first listing of `posts`, 100 a page, that counts the pages fetched. */
function pagedListing(posts: ListedPost[]) {
  const listing = {
    fetched: 0,
    page: async (cursor: string | undefined) => {
      listing.fetched++;
      const start = cursor ? Number(cursor) : 0;
      return { posts: posts.slice(start, start + 100), next: start + 100 < posts.length ? String(start + 100) : undefined };
    },
  };
  return listing;
}

describe('recent posts listed while posting goes on', () => {
  it('a post listed twice (a position-paged list shifted by new posts) is one match, not two', () => {
    const post = { id: 'p_1', text: 'crash post 1-4', createdAt: Date.now(), url: null };
    const other = { id: 'p_2', text: 'crash post 1-5', createdAt: Date.now(), url: null };
    assert.deepEqual(matchRecentPost([post, other, post], input, true), { status: 'found', providerPostId: 'p_1', url: null });
    // two different posts with the text are still two
    assert.equal(matchRecentPost([post, { ...post, id: 'p_3' }], input, true).status, 'unknown');
  });

  it("a sweep's lookups of one account walk its listing once, and reach back past 1,000 posts of the window", async () => {
    // 3,000 posts in the last minute, newest first, 100 a page (an account posting at volume)
    const now = Date.now();
    const posts: ListedPost[] = Array.from({ length: 3_000 }, (_, i) => ({
      id: `p_${i}`,
      text: `volume post ${i}`,
      createdAt: now - i * 20,
      url: null,
    }));
    const listing = pagedListing(posts);
    const page = listing.page;
    const shared: ListingPages = new Map();
    const look = (text: string) =>
      findInListing({ ...input, text, since: new Date(now - 70_000), until: new Date(now), listingPages: shared }, page, 'account listing');
    const found = await Promise.all(['volume post 5', 'volume post 1500', 'volume post 2999', 'volume post 2998'].map(look));
    assert.deepEqual(
      found.map((f) => (f.status === 'found' ? f.providerPostId : f.status)),
      ['p_5', 'p_1500', 'p_2999', 'p_2998'],
    );
    // a post not in the full listing is absent (the walk reached its end), still without a page fetched twice
    assert.deepEqual(await look('never posted'), { status: 'absent' });
    assert.equal(listing.fetched, 30);
    // without a shared listing each lookup walks it again
    await findInListing({ ...input, text: 'volume post 2999', since: new Date(now - 70_000), until: new Date(now) }, page);
    assert.equal(listing.fetched, 60);
  });

  it('a walk ends past the newest post known to precede the attempt, instead of two minutes of slack back', async () => {
    // an account posting 50 posts a second for the last 3 minutes (9,000 posts), newest first, 100 a page;
    // creation times in whole seconds, as the platforms give them
    const now = Math.floor(Date.now() / 1000) * 1000;
    const posts: ListedPost[] = Array.from({ length: 9_000 }, (_, i) => ({
      id: `p_${i}`,
      text: `busy post ${i}`,
      createdAt: now - Math.floor(i / 50) * 1000,
      url: null,
    }));
    const listing = pagedListing(posts);
    const page = listing.page;
    // the attempt was claimed 10 s ago (post 500 on); the window's slack reaches back 130 s (6,500 posts)
    const attempt = { ...input, since: new Date(now - 10_000), until: new Date(now) };
    assert.deepEqual(await findInListing({ ...attempt, text: 'never posted' }, page), {
      status: 'unknown',
      reason: 'the listing did not reach back to the attempt',
    });
    assert.equal(listing.fetched, 40);
    // p_530 was recorded published before the claim: the walk stops at the first post of an older second
    // (p_550), covering p_531..p_549 listed after it in the same second
    listing.fetched = 0;
    const bounded = { ...attempt, postedBefore: new Set(['p_530', 'p_700', 'p_8000']) };
    assert.deepEqual(await findInListing({ ...bounded, text: 'never posted' }, page), { status: 'absent' });
    assert.equal(listing.fetched, 6);
    for (const text of ['busy post 3', 'busy post 549'])
      assert.deepEqual(await findInListing({ ...bounded, text }, page), {
        status: 'found',
        providerPostId: text.replace('busy post ', 'p_'),
        url: null,
      });
    // a post older than the known one cannot be the attempt's, though it is within the slack of the window
    assert.deepEqual(await findInListing({ ...bounded, text: 'busy post 560' }, page), { status: 'absent' });
    // a known post the listing no longer has (deleted) leaves the time window as the bound
    listing.fetched = 0;
    const deleted = await findInListing({ ...attempt, postedBefore: new Set(['gone']), text: 'never posted' }, page);
    assert.equal(deleted.status, 'unknown');
    assert.equal(listing.fetched, 40);
  });

  describe('the Meta simulator pages like Graph: cursors name an item, not a position', () => {
    let meta: RunningMetaSimulator;
    let token: string;
    let api: string;
    before(async () => {
      meta = await startMetaSimulator({ containerDelayMs: 10 });
      const s = meta.state;
      [token] = metaPageTokens(s, [s.seed.pageId]) as [string];
      api = `${meta.baseUrls.facebook_page.apiBaseUrl}/${s.seed.pageId}`;
    });
    after(() => meta.close());

    const post = async (message: string) => {
      const res = await fetch(`${api}/feed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ message }),
      });
      assert.equal(res.status, 200);
    };
    const list = async (after?: string) => {
      const q = new URLSearchParams({ fields: 'id,message', limit: '5', access_token: token, ...(after ? { after } : {}) });
      return (await (await fetch(`${api}/posts?${q}`)).json()) as {
        data: Array<{ id: string; message: string }>;
        paging?: { cursors?: { after?: string }; next?: string };
      };
    };

    it('the next page follows the last item seen, whatever was posted meanwhile', async () => {
      for (let i = 0; i < 8; i++) await post(`old ${i}`);
      const first = await list();
      assert.deepEqual(
        first.data.map((p) => p.message),
        ['old 7', 'old 6', 'old 5', 'old 4', 'old 3'],
      );
      for (let i = 0; i < 3; i++) await post(`new ${i}`);
      const second = await list(first.paging?.cursors?.after);
      assert.deepEqual(
        second.data.map((p) => p.message),
        ['old 2', 'old 1', 'old 0'],
      );
      assert.equal(second.paging?.next, undefined, 'the walk ends at the oldest post');
    });
  });
});
