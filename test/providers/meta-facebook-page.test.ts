import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createFacebookPageProvider } from '../../src/providers/facebook-page/facebook-page.provider.js';
import { FACEBOOK_PAGE_ENDPOINTS } from '../../src/providers/facebook-page/facebook-page.rules.js';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { connect, ctxFor, type MetaHarness, postOf, REDIRECT_URI, rejectsWith, startMetaHarness, untilPublished } from './meta-harness.js';

describe('facebook_page adapter against the Meta simulator', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let userToken: string;
  let page: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createFacebookPageProvider(h.config('facebook_page'));
    const tokens = await connect(provider);
    userToken = tokens.accessToken;
    const pages = await provider.lookupAccounts({ tokens });
    const first = pages.find((p) => p.externalAccountId === h.sim.state.seed.pageId);
    assert.ok(first?.accountAccessToken);
    page = ctxFor(first.accountAccessToken, first.externalAccountId);
  });
  after(() => h.close());

  it('builds the Facebook Login dialog URL with the documented parameters', () => {
    const real = createFacebookPageProvider({
      ...h.config('facebook_page'),
      ...FACEBOOK_PAGE_ENDPOINTS,
    });
    const url = new URL(
      real.oauth.authorizationUrl({
        state: 's1',
        redirectUri: REDIRECT_URI,
        scopes: ['pages_show_list', 'pages_manage_posts'],
      }),
    );
    assert.equal(`${url.origin}${url.pathname}`, 'https://www.facebook.com/v25.0/dialog/oauth');
    assert.equal(url.searchParams.get('client_id'), 'sandbox-meta-app');
    assert.equal(url.searchParams.get('redirect_uri'), REDIRECT_URI);
    assert.equal(url.searchParams.get('state'), 's1');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('scope'), 'pages_show_list,pages_manage_posts');
  });

  it('exchanges the code for a long-lived user token with the granted scopes, and refreshes it', async () => {
    const tokens = await connect(provider);
    const days = ((tokens.expiresAt?.getTime() ?? 0) - Date.now()) / 86_400_000;
    assert.ok(days > 59 && days <= 60, `long-lived token expected, got ${days} days`);
    assert.deepEqual(tokens.scopes.sort(), [...provider.oauth.defaultScopes].sort());
    assert.equal(tokens.refreshToken, null);
    const refreshed = await provider.oauth.refresh({
      accessToken: tokens.accessToken,
      refreshToken: null,
    });
    assert.notEqual(refreshed.accessToken, tokens.accessToken);
    assert.ok(refreshed.expiresAt);
    const pages = await provider.lookupAccounts({ tokens: refreshed });
    assert.equal(pages.length, 2);
  });

  it('rejects a reused authorization code', async () => {
    const res = await fetch(
      provider.oauth.authorizationUrl({
        state: 'x',
        redirectUri: REDIRECT_URI,
        scopes: [],
      }),
      { redirect: 'manual' },
    );
    const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
    await provider.oauth.exchangeCode({ code, redirectUri: REDIRECT_URI });
    await rejectsWith(provider.oauth.exchangeCode({ code, redirectUri: REDIRECT_URI }), 'user_content');
  });

  it('lists the managed pages with their page access tokens', async () => {
    const pages = await provider.lookupAccounts({
      tokens: {
        accessToken: userToken,
        refreshToken: null,
        expiresAt: null,
        refreshTokenExpiresAt: null,
        scopes: [],
        extra: {},
      },
    });
    assert.deepEqual(pages.map((p) => p.displayName).sort(), ['Sandbox Books', 'Sandbox Coffee']);
    for (const p of pages) assert.match(p.accountAccessToken ?? '', /^EAAP/);
  });

  it('publishes text, link, one photo and several photos', async () => {
    const before = h.sim.ledger.posts.length;
    const text = await provider.publish(page, postOf('Fresh roast today', 'k1'));
    assert.equal(text.status, 'published');
    assert.match(text.status === 'published' ? (text.url ?? '') : '', /^https:\/\/www\.facebook\.com\/\d+\/posts\/\d+$/);
    const link = await provider.publish(page, {
      text: '',
      media: [],
      settings: { link: 'https://example.com/menu' },
      idempotencyKey: 'k2',
    });
    assert.equal(link.status, 'published');
    const photo = await provider.publish(page, postOf('One photo', 'k3', [h.image()]));
    assert.equal(photo.status, 'published');
    const album = await provider.publish(page, postOf('Two photos', 'k4', [h.image(), h.image()]));
    assert.equal(album.status, 'published');
    const posts = h.sim.ledger.posts.slice(before);
    assert.deepEqual(
      posts.map((p) => [p.text, p.mediaCount]),
      [
        ['Fresh roast today', 0],
        ['', 0],
        ['One photo', 1],
        ['Two photos', 2],
      ],
    );
  });

  it("takes a text post's permalink from the write itself (read-after-write), one request per post", async () => {
    const calls = h.sim.ledger.requests.length;
    const res = await provider.publish(page, postOf('One round trip', 'k1b'));
    assert.equal(res.status, 'published');
    const made = h.sim.ledger.requests.slice(calls);
    assert.deepEqual(
      made.map((r) => `${r.method} ${r.url.split('?')[0]}`),
      [`POST /facebook/graph/v25.0/${h.sim.state.seed.pageId}/feed`],
      'no GET of the permalink after the write',
    );
    const id = res.status === 'published' ? res.providerPostId : '';
    const post = h.sim.state.get(id);
    assert.equal(post?.kind, 'post');
    assert.equal(res.status === 'published' ? res.url : null, post?.kind === 'post' ? post.permalink : 'missing');
  });

  it('publishes a video, polling its processing status', async () => {
    const first = await provider.publish(page, {
      text: 'A video',
      media: [h.video()],
      settings: { videoTitle: 'Clip' },
      idempotencyKey: 'k5',
    });
    assert.equal(first.status, 'processing');
    const done = await untilPublished(provider, page, first);
    assert.match(done.url ?? '', /\/videos\/\d+\/$/);
  });

  it('fails a video whose file cannot be fetched as user_content', async () => {
    const attempt = async () => {
      const first = await provider.publish(page, postOf('Broken video', 'k6', [h.video('missing.mp4')]));
      return untilPublished(provider, page, first);
    };
    // the fetch may fail before or after the first status read: either way the outcome is user_content
    await rejectsWith(attempt(), 'user_content');
  });

  it('posts a first comment and a reply, lists them, and reads insights', async () => {
    const post = await provider.publish(page, postOf('Comment on me', 'k7'));
    assert.equal(post.status, 'published');
    const postId = post.status === 'published' ? post.providerPostId : '';
    const first = await provider.postComment(page, {
      providerPostId: postId,
      text: 'First!',
    });
    const reply = await provider.postComment(page, {
      providerPostId: postId,
      text: 'A reply',
      replyToCommentId: first.providerCommentId,
    });
    const comments = await provider.listComments(page, {
      providerPostId: postId,
      limit: 10,
    });
    assert.equal(comments.length, 2);
    const r = comments.find((c) => c.providerCommentId === reply.providerCommentId);
    assert.equal(r?.parentProviderCommentId, first.providerCommentId);
    assert.equal(r?.authorName, 'Sandbox Coffee');
    const stored = h.sim.state.get(postId);
    assert.ok(stored?.kind === 'post');
    Object.assign(stored.stats, { reach: 40, clicks: 3, likes: 5 });
    const analytics = await provider.fetchPostAnalytics(page, {
      providerPostId: postId,
    });
    assert.deepEqual(analytics.metrics, {
      post_impressions_unique: 40,
      post_clicks: 3,
      post_reactions_by_type_total: 5,
    });
    assert.equal(await provider.fetchPermalink(page, postId), `https://www.facebook.com/${postId.replace('_', '/posts/')}`);
  });

  it('runs pageProfile and mentionSearch', async () => {
    const [profile] = await provider.runTool(page, 'pageProfile', {});
    assert.equal(profile?.displayName, 'Sandbox Coffee');
    assert.equal(profile?.fanCount, 1200);
    const found = await provider.runTool(page, 'mentionSearch', {
      query: 'coffee',
    });
    assert.deepEqual(found.map((p) => p.displayName).sort(), ['Other Coffee Roasters', 'Sandbox Coffee']);
    await rejectsWith(provider.runTool(page, 'boardList', {}), 'platform_rejected');
  });

  it('maps every failure to its category', async () => {
    const post = postOf('Error test', 'e');
    h.sim.failures.inject({ kind: 'expired_token', operation: 'publish' });
    await rejectsWith(provider.publish(page, post), 'auth_expired');
    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'publish',
      retryAfterSeconds: 120,
    });
    const limited = await rejectsWith(provider.publish(page, post), 'rate_limited');
    assert.equal(limited.retryAfterSeconds, 120);
    assert.equal(limited.providerCode, '80001');
    h.sim.failures.inject({ kind: 'server_error', operation: 'read' });
    await rejectsWith(provider.runTool(page, 'pageProfile', {}), 'transient');
    await rejectsWith(
      provider.publish(page, {
        ...post,
        media: [h.image('nope.jpg')],
      }),
      'user_content',
    );
    await provider.publish(page, { ...post, text: 'Same words' });
    await rejectsWith(provider.publish(page, { ...post, text: 'Same words' }), 'user_content');
    // a user token cannot publish to a page: permission error
    await rejectsWith(provider.publish(ctxFor(userToken, page.externalAccountId), post), 'platform_rejected');
  });

  it('reports a lost publish answer as unknown_outcome while the post exists exactly once', async () => {
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(provider.publish(page, postOf('Lost answer post', 'lost')), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'Lost answer post').length, 1);
  });

  it('treats a read that times out as transient', async () => {
    const quick = createFacebookPageProvider(h.config('facebook_page', { timeoutMs: 150 }));
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'read',
      delayMs: 1_000,
    });
    await rejectsWith(quick.fetchPermalink(page, `${page.externalAccountId}_1`), 'transient');
  });

  it('extends a page token without failing on the missing permissions edge', async () => {
    const refreshed = await provider.oauth.refresh({
      accessToken: page.accessToken,
      refreshToken: null,
    });
    assert.deepEqual(refreshed.scopes, []);
    const [profile] = await provider.runTool(ctxFor(refreshed.accessToken, page.externalAccountId), 'pageProfile', {});
    assert.equal(profile?.displayName, 'Sandbox Coffee');
  });

  it('revokes the user token', async () => {
    const tokens = await connect(provider);
    await provider.oauth.revoke({
      accessToken: tokens.accessToken,
      externalAccountId: page.externalAccountId,
    });
    await rejectsWith(provider.lookupAccounts({ tokens }), 'auth_expired');
  });
});
