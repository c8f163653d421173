/**
 * Crash reconciliation's lookup (findRecentPost) against the simulators' list endpoints: a post made
 * in the window is found with its URL, one held by another target or outside the window is not, and the
 * list endpoints page like the official ones (X pagination_token, Pinterest bookmark).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createFacebookPageProvider } from '../../src/providers/facebook-page/facebook-page.provider.js';
import { createInstagramBusinessProvider } from '../../src/providers/instagram-business/instagram-business.provider.js';
import type { FindRecentPostInput, ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import type { SimPost } from '../../src/sandbox/simulators/meta/meta-state.js';
import { connect, ctxFor, type MetaHarness, mediaItem, startMetaHarness, untilPublished } from './meta-harness.js';
import { type PinterestHarness, startPinterestHarness } from './pinterest-harness.js';
import { baseSettings, startTiktokHarness, type TiktokHarness, request as tiktokRequest, videoItem } from './tiktok-harness.js';
import { published, startXHarness, type XHarness } from './x-harness.js';
import { publishRequest, startYoutubeHarness, type YoutubeHarness } from './youtube-harness.js';

const windowAround = (overrides: Partial<FindRecentPostInput> = {}): FindRecentPostInput => ({
  text: '',
  since: new Date(Date.now() - 60_000),
  until: new Date(Date.now() + 60_000),
  excludeIds: [],
  mediaKinds: [],
  settings: {},
  ...overrides,
});

describe('findRecentPost on X', () => {
  let h: XHarness;
  let ctx: ProviderCallContext;
  before(async () => {
    h = await startXHarness();
    const tokens = await h.connect('recent_poster');
    const [account] = await h.provider.lookupAccounts({ tokens });
    ctx = { accessToken: tokens.accessToken, externalAccountId: account!.externalAccountId, channelSettings: { handle: 'recent_poster' } };
  });
  after(() => h.sim.close());

  it('finds the post by its text in the window, links compared without their URL', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = published(
        await h.provider.publish(ctx, { text: `recent ${i} https://example.com/${i}`, media: [], settings: {}, idempotencyKey: `r${i}` }),
      );
      ids.push(r.providerPostId);
    }
    const found = await h.provider.findRecentPost!(ctx, windowAround({ text: 'recent 2 https://example.com/2' }));
    assert.deepEqual(found, { status: 'found', providerPostId: ids[2], url: `https://x.com/recent_poster/status/${ids[2]}` });
    // held by another target: not this one's
    assert.deepEqual(await h.provider.findRecentPost!(ctx, windowAround({ text: 'recent 2', excludeIds: [ids[2]!] })), {
      status: 'absent',
    });
    assert.deepEqual(await h.provider.findRecentPost!(ctx, windowAround({ text: 'never posted' })), { status: 'absent' });
    // posted before the attempt's window
    const later = windowAround({ text: 'recent 3', since: new Date(Date.now() + 600_000), until: new Date(Date.now() + 700_000) });
    assert.equal((await h.provider.findRecentPost!(ctx, later)).status, 'absent');
  });

  it('GET /2/users/:id/tweets pages newest first with pagination_token', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const url = new URL(`${h.sim.baseUrls.apiBaseUrl}/users/${ctx.externalAccountId}/tweets`);
      url.searchParams.set('max_results', '5');
      if (token) url.searchParams.set('pagination_token', token);
      const res = await fetch(url, { headers: { authorization: `Bearer ${ctx.accessToken}` } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data?: Array<{ id: string }>; meta: { result_count: number; next_token?: string } };
      assert.equal(body.meta.result_count, body.data?.length ?? 0);
      seen.push(...(body.data ?? []).map((t) => t.id));
      token = body.meta.next_token;
      pages += 1;
    } while (token);
    assert.equal(pages, 2);
    assert.equal(seen.length, 7);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1)),
    );
    const bad = await fetch(`${h.sim.baseUrls.apiBaseUrl}/users/${ctx.externalAccountId}/tweets?max_results=500`, {
      headers: { authorization: `Bearer ${ctx.accessToken}` },
    });
    assert.equal(bad.status, 400);
  });

  it('a pagination_token names a post: posts made while paging do not come again on the next page', async () => {
    const list = async (token?: string) => {
      const url = new URL(`${h.sim.baseUrls.apiBaseUrl}/users/${ctx.externalAccountId}/tweets`);
      url.searchParams.set('max_results', '5');
      if (token) url.searchParams.set('pagination_token', token);
      const res = await fetch(url, { headers: { authorization: `Bearer ${ctx.accessToken}` } });
      return (await res.json()) as { data?: Array<{ id: string }>; meta: { next_token?: string } };
    };
    const first = await list();
    for (let i = 0; i < 2; i++)
      await h.provider.publish(ctx, { text: `while paging ${i}`, media: [], settings: {}, idempotencyKey: `wp${i}` });
    const second = await list(first.meta.next_token);
    const firstIds = (first.data ?? []).map((t) => t.id);
    const secondIds = (second.data ?? []).map((t) => t.id);
    assert.ok(secondIds.length > 0);
    assert.deepEqual(
      secondIds.filter((id) => firstIds.includes(id)),
      [],
    );
    const oldestFirst = BigInt(firstIds.at(-1)!);
    assert.ok(secondIds.every((id) => BigInt(id) < oldestFirst));
  });
});

describe('findRecentPost on Pinterest', () => {
  let h: PinterestHarness;
  before(async () => {
    h = await startPinterestHarness();
  });
  after(() => h.close());

  it('finds the Pin by its description; GET /v5/pins pages with a bookmark', async () => {
    const ctx = h.freshContext();
    const ids: string[] = [];
    for (const text of ['first pin', 'second pin', 'third pin']) {
      const r = await h.pin.publish(ctx, h.request([h.image()], {}, text));
      assert.equal(r.status, 'published');
      if (r.status === 'published') ids.push(r.providerPostId);
    }
    assert.deepEqual(await h.pin.findRecentPost!(ctx, windowAround({ text: 'second pin' })), {
      status: 'found',
      providerPostId: ids[1],
      url: `https://www.pinterest.com/pin/${ids[1]}/`,
    });
    assert.deepEqual(await h.pin.findRecentPost!(ctx, windowAround({ text: 'fourth pin' })), { status: 'absent' });

    const seen: string[] = [];
    let bookmark: string | null = null;
    do {
      const url = new URL(`${h.sim.baseUrls.apiBaseUrl}/pins`);
      url.searchParams.set('page_size', '2');
      if (bookmark) url.searchParams.set('bookmark', bookmark);
      const res = await fetch(url, { headers: { authorization: `Bearer ${ctx.accessToken}` } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { items: Array<{ id: string }>; bookmark: string | null };
      seen.push(...body.items.map((p) => p.id));
      bookmark = body.bookmark;
    } while (bookmark);
    assert.deepEqual(seen, [...ids].reverse());

    // a bookmark names the last Pin seen: a Pin made while paging does not repeat one on the next page
    const page = async (mark?: string) => {
      const url = new URL(`${h.sim.baseUrls.apiBaseUrl}/pins`);
      url.searchParams.set('page_size', '2');
      if (mark) url.searchParams.set('bookmark', mark);
      return (await (await fetch(url, { headers: { authorization: `Bearer ${ctx.accessToken}` } })).json()) as {
        items: Array<{ id: string }>;
        bookmark: string | null;
      };
    };
    const one = await page();
    assert.equal((await h.pin.publish(ctx, h.request([h.image()], {}, 'pin made while paging'))).status, 'published');
    const two = await page(one.bookmark ?? undefined);
    assert.deepEqual(
      [...one.items, ...two.items].map((p) => p.id),
      [ids[2], ids[1], ids[0]],
    );
  });
});

describe('findRecentPost on Facebook Page videos and Instagram stories', () => {
  let h: MetaHarness;
  before(async () => {
    h = await startMetaHarness();
  });
  after(() => h.close());

  it('finds a Page video on /{page-id}/videos; a failed one is absent, one still processing unknown', async () => {
    const fb: SocialProvider = createFacebookPageProvider(h.config('facebook_page'));
    const pages = await fb.lookupAccounts({ tokens: await connect(fb) });
    const page = pages.find((p) => p.externalAccountId === h.sim.state.seed.pageId)!;
    const ctx = ctxFor(page.accountAccessToken!, page.externalAccountId);
    const video = (text: string, file = 'video.mp4') =>
      fb.publish(ctx, { text, media: [mediaItem('video', h.mediaUrl(file))], settings: {}, idempotencyKey: text });
    const lookUp = (text: string, extra: Partial<FindRecentPostInput> = {}) =>
      fb.findRecentPost!(ctx, windowAround({ text, mediaKinds: ['video'], ...extra }));

    const landed = await untilPublished(fb, ctx, await video('launch video'));
    assert.deepEqual(await lookUp('launch video'), { status: 'found', providerPostId: landed.providerPostId, url: landed.url });
    assert.deepEqual(await lookUp('launch video', { excludeIds: [landed.providerPostId] }), { status: 'absent' });
    assert.deepEqual(await lookUp('never uploaded'), { status: 'absent' });

    // the file could not be fetched: processing failed, no post
    await video('broken video', 'missing.mp4').catch(() => null);
    const brokenId = h.sim.ledger.posts.find((p) => p.text === 'broken video')!.postId;
    await until(() => (h.sim.state.get(brokenId) as SimPost | undefined)?.videoState === 'error');
    assert.deepEqual(await lookUp('broken video'), { status: 'absent' });

    // still processing: it may yet become a post
    await video('slow video');
    const slowId = h.sim.ledger.posts.find((p) => p.text === 'slow video')!.postId;
    await until(() => (h.sim.state.get(slowId) as SimPost | undefined)?.videoState === 'ready');
    h.sim.state.advanceClock(-3_600_000);
    try {
      assert.deepEqual(await lookUp('slow video'), { status: 'unknown', reason: 'the video is still processing' });
    } finally {
      h.sim.state.advanceClock(3_600_000);
    }
  });

  it('finds a story on /{ig-user-id}/stories by its time; two in the window are unknown; stories stay off /media', async () => {
    const ig = createInstagramBusinessProvider(h.config('instagram_business'));
    const tokens = await connect(ig);
    const [account] = await ig.lookupAccounts({ tokens });
    const ctx = ctxFor(tokens.accessToken, account!.externalAccountId);
    const story = async (key: string) =>
      untilPublished(
        ig,
        ctx,
        await ig.publish(ctx, {
          text: '',
          media: [mediaItem('image', h.mediaUrl('image.jpg'))],
          settings: { postType: 'story' },
          idempotencyKey: key,
        }),
      );
    const lookUp = (extra: Partial<FindRecentPostInput> = {}) =>
      ig.findRecentPost!(ctx, windowAround({ text: 'ignored: stories carry no caption', settings: { postType: 'story' }, ...extra }));

    assert.deepEqual(await lookUp(), { status: 'absent' });
    const first = await story('s1');
    assert.deepEqual(await lookUp(), { status: 'found', providerPostId: first.providerPostId, url: first.url });
    const second = await story('s2');
    assert.equal((await lookUp()).status, 'unknown');
    assert.deepEqual(await lookUp({ excludeIds: [first.providerPostId] }), {
      status: 'found',
      providerPostId: second.providerPostId,
      url: second.url,
    });
    // before the window: not this attempt's
    const earlier = { since: new Date(Date.now() - 3_600_000), until: new Date(Date.now() - 3_000_000) };
    assert.deepEqual(await lookUp(earlier), { status: 'absent' });

    const media = await fetch(`${h.config('instagram_business').apiBaseUrl}/${ctx.externalAccountId}/media?fields=id`, {
      headers: { authorization: `Bearer ${ctx.accessToken}` },
    });
    const listed = ((await media.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    assert.ok(!listed.includes(first.providerPostId) && !listed.includes(second.providerPostId));
  });
});

describe('findRecentPost on YouTube', () => {
  let h: YoutubeHarness;
  before(async () => {
    h = await startYoutubeHarness();
  });
  after(() => h.sim.close());

  it('finds the upload in the uploads playlist by title and description; one still processing is unknown', async () => {
    const ctx = h.freshContext();
    h.sim.state.processingReads = 0;
    const ids: string[] = [];
    for (const title of ['Video A', 'Video B', 'Video C']) {
      const r = await h.yt.publish(ctx, { ...publishRequest({ title, privacyStatus: 'private' }), idempotencyKey: title });
      assert.equal(r.status, 'published');
      if (r.status === 'published') ids.push(r.providerPostId);
    }
    const lookUp = (title: string, text = 'A description', extra: Partial<FindRecentPostInput> = {}) =>
      h.yt.findRecentPost!(ctx, windowAround({ text, settings: { title }, mediaKinds: ['video'], ...extra }));
    assert.deepEqual(await lookUp('Video B'), {
      status: 'found',
      providerPostId: ids[1],
      url: `https://www.youtube.com/watch?v=${ids[1]}`,
    });
    assert.deepEqual(await lookUp('Video B', 'another description'), { status: 'absent' });
    assert.deepEqual(await lookUp('Video Z'), { status: 'absent' });
    assert.deepEqual(await lookUp('Video B', 'A description', { excludeIds: [ids[1]!] }), { status: 'absent' });

    h.sim.state.processingReads = 5;
    await h.yt.publish(ctx, { ...publishRequest({ title: 'Video D' }), idempotencyKey: 'Video D' });
    assert.deepEqual(await lookUp('Video D'), { status: 'unknown', reason: 'the video is still processing' });

    // playlistItems.list pages newest first with pageToken, like the Data API
    const channels = await fetch(`${h.sim.baseUrls.apiBaseUrl}/channels?part=contentDetails&mine=true`, {
      headers: { authorization: `Bearer ${ctx.accessToken}` },
    });
    const uploads = ((await channels.json()) as { items: Array<{ contentDetails: { relatedPlaylists: { uploads: string } } }> }).items[0]!
      .contentDetails.relatedPlaylists.uploads;
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const url = new URL(`${h.sim.baseUrls.apiBaseUrl}/playlistItems`);
      url.search = new URLSearchParams({
        part: 'contentDetails',
        playlistId: uploads,
        maxResults: '3',
        ...(pageToken ? { pageToken } : {}),
      }).toString();
      const res = await fetch(url, { headers: { authorization: `Bearer ${ctx.accessToken}` } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { items: Array<{ contentDetails: { videoId: string } }>; nextPageToken?: string };
      seen.push(...body.items.map((i) => i.contentDetails.videoId));
      pageToken = body.nextPageToken;
    } while (pageToken);
    assert.equal(seen.length, 4);
    assert.deepEqual(seen.slice(1), [...ids].reverse());
  });
});

describe('findRecentPost on TikTok', () => {
  let h: TiktokHarness;
  before(async () => {
    h = await startTiktokHarness();
  });
  after(() => h.sim.close());

  it('finds a public video in POST /v2/video/list/ without its publish_id; private ones cannot be told', async () => {
    const ctx = await h.channel();
    // published, then the worker "died": nobody fetched the status
    for (const text of ['clip one', 'clip two', 'clip three']) {
      const r = await h.provider.publish(ctx, tiktokRequest([videoItem(1024 * 1024)], {}, text));
      assert.equal(r.status, 'processing');
    }
    await h.provider.publish(ctx, tiktokRequest([videoItem(1024 * 1024)], { privacy_level: 'SELF_ONLY' }, 'private clip'));
    await new Promise((r) => setTimeout(r, 60));
    const lookUp = (text: string, settings: Record<string, unknown> = baseSettings) =>
      h.provider.findRecentPost!(ctx, windowAround({ text, settings, mediaKinds: ['video'] }));
    const found = await lookUp('clip two');
    assert.equal(found.status, 'found');
    if (found.status !== 'found') return;
    assert.equal(
      found.url,
      `https://www.tiktok.com/@${h.sim.state.users.get(ctx.externalAccountId)?.username}/video/${found.providerPostId}`,
    );
    assert.deepEqual(await lookUp('clip four'), { status: 'absent' });
    assert.deepEqual(await lookUp('private clip', { ...baseSettings, privacy_level: 'SELF_ONLY' }), {
      status: 'unknown',
      reason: 'only public videos are in the video list',
    });

    // newest first, cursor paging by create time
    const seen: string[] = [];
    let cursor: number | undefined;
    for (let more = true; more; ) {
      const res = await fetch(`${h.sim.baseUrls.apiBaseUrl}/video/list/?fields=id,title,create_time`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ max_count: 2, ...(cursor !== undefined ? { cursor } : {}) }),
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { data: { videos: Array<{ title: string }>; cursor: number; has_more: boolean } };
      seen.push(...body.data.videos.map((v) => v.title));
      cursor = body.data.cursor;
      more = body.data.has_more;
    }
    assert.deepEqual(seen, ['clip three', 'clip two', 'clip one']);
  });
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; !done(); i++) {
    assert.ok(i < 250, 'the simulator did not get there');
    await new Promise((r) => setTimeout(r, 20));
  }
}
