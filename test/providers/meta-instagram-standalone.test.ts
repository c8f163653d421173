import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInstagramStandaloneProvider } from '../../src/providers/instagram-standalone/instagram-standalone.provider.js';
import { INSTAGRAM_STANDALONE_ENDPOINTS } from '../../src/providers/instagram-standalone/instagram-standalone.rules.js';
import type { OAuthTokens, ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { connect, ctxFor, type MetaHarness, postOf, REDIRECT_URI, rejectsWith, startMetaHarness, untilPublished } from './meta-harness.js';

describe('instagram_standalone adapter against the Meta simulator', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let tokens: OAuthTokens;
  let ig: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createInstagramStandaloneProvider(h.config('instagram_standalone'));
    tokens = await connect(provider);
    const [account] = await provider.lookupAccounts({ tokens });
    assert.ok(account);
    ig = ctxFor(tokens.accessToken, account.externalAccountId);
  });
  after(() => h.close());

  it('builds the Business Login authorization URL', () => {
    const real = createInstagramStandaloneProvider({
      ...h.config('instagram_standalone'),
      ...INSTAGRAM_STANDALONE_ENDPOINTS,
    });
    const url = new URL(
      real.oauth.authorizationUrl({
        state: 'st',
        redirectUri: REDIRECT_URI,
        scopes: [],
      }),
    );
    assert.equal(`${url.origin}${url.pathname}`, 'https://api.instagram.com/oauth/authorize');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(
      url.searchParams.get('scope'),
      'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments,instagram_business_manage_insights',
    );
    assert.equal(url.searchParams.get('state'), 'st');
    assert.equal(real.oauth.supportsRevoke, false);
  });

  it('exchanges the code for a long-lived token and refreshes it (ig_refresh_token)', async () => {
    assert.match(tokens.accessToken, /^IGAA/);
    assert.equal(tokens.extra.user_id, h.sim.state.seed.igStandaloneId);
    assert.deepEqual(tokens.scopes, provider.oauth.defaultScopes);
    assert.ok((tokens.expiresAt?.getTime() ?? 0) > Date.now() + 59 * 86_400_000);
    const refreshed = await provider.oauth.refresh({
      accessToken: tokens.accessToken,
      refreshToken: null,
    });
    assert.notEqual(refreshed.accessToken, tokens.accessToken);
    const [account] = await provider.lookupAccounts({ tokens: refreshed });
    assert.equal(account?.handle, 'sandbox.studio');
    await provider.oauth.revoke({
      accessToken: refreshed.accessToken,
      externalAccountId: ig.externalAccountId,
    });
  });

  it("reads the token endpoint's flat error body (wrong client secret)", async () => {
    const wrong = createInstagramStandaloneProvider(h.config('instagram_standalone', { clientSecret: 'nope' }));
    const res = await fetch(
      wrong.oauth.authorizationUrl({
        state: 's',
        redirectUri: REDIRECT_URI,
        scopes: [],
      }),
      { redirect: 'manual' },
    );
    const code = new URL(res.headers.get('location') ?? '').searchParams.get('code') ?? '';
    const err = await rejectsWith(wrong.oauth.exchangeCode({ code, redirectUri: REDIRECT_URI }), 'user_content');
    assert.match(err.message, /client secret/);
    assert.equal(err.providerCode, '400');
  });

  it('publishes image, carousel and story on graph.instagram.com', async () => {
    const image = await untilPublished(provider, ig, await provider.publish(ig, postOf('Studio shot', 's1', [h.image()])));
    assert.match(image.url ?? '', /instagram\.com\/p\//);
    const carousel = await untilPublished(provider, ig, await provider.publish(ig, postOf('Two', 's2', [h.image(), h.image()])));
    const story = await untilPublished(
      provider,
      ig,
      await provider.publish(ig, {
        text: '',
        media: [h.image()],
        settings: { postType: 'story' },
        idempotencyKey: 's3',
      }),
    );
    const posts = h.sim.ledger.posts.filter((p) => p.platform === 'instagram_standalone');
    assert.deepEqual(
      posts.map((p) => p.postId),
      [image.providerPostId, carousel.providerPostId, story.providerPostId],
    );
    const stored = h.sim.state.get(story.providerPostId);
    assert.ok(stored?.kind === 'post' && stored.mediaType === 'STORY');
  });

  it('comments and reads insights and its own profile', async () => {
    const post = await untilPublished(provider, ig, await provider.publish(ig, postOf('Comments here', 's4', [h.image()])));
    await provider.postComment(ig, {
      providerPostId: post.providerPostId,
      text: 'First comment plug',
    });
    const comments = await provider.listComments(ig, {
      providerPostId: post.providerPostId,
      limit: 5,
    });
    assert.equal(comments[0]?.body, 'First comment plug');
    const analytics = await provider.fetchPostAnalytics(ig, {
      providerPostId: post.providerPostId,
    });
    assert.equal(analytics.metrics.comments, 1);
    const [profile] = await provider.runTool(ig, 'pageProfile', {});
    assert.equal(profile?.handle, 'sandbox.studio');
    assert.equal(profile?.mediaCount, h.sim.ledger.posts.filter((p) => p.platform === 'instagram_standalone').length);
    await rejectsWith(provider.runTool(ig, 'mentionSearch', { query: 'x' }), 'platform_rejected');
  });

  it('maps failures to categories, including a lost answer', async () => {
    const post = postOf('err', 'e', [h.image()]);
    h.sim.failures.inject({ kind: 'expired_token', operation: 'read' });
    await rejectsWith(provider.fetchPermalink(ig, '1'), 'auth_expired');
    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'container',
      retryAfterSeconds: 60,
    });
    const limited = await rejectsWith(provider.publish(ig, post), 'rate_limited');
    assert.equal(limited.providerCode, '80002');
    h.sim.failures.inject({ kind: 'server_error', operation: 'token' });
    await rejectsWith(
      provider.oauth.refresh({
        accessToken: ig.accessToken,
        refreshToken: null,
      }),
      'transient',
    );
    const noPublish = await connect(provider, ['instagram_business_basic']);
    await rejectsWith(provider.publish(ctxFor(noPublish.accessToken, ig.externalAccountId), post), 'platform_rejected');
    await rejectsWith(provider.publish(ctxFor(noPublish.accessToken, h.sim.state.seed.igBusinessId), post), 'user_content');

    const first = await provider.publish(ig, {
      ...post,
      text: 'lost standalone',
    });
    await new Promise((r) => setTimeout(r, 200));
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(provider.pollPublish(ig, first.status === 'processing' ? first.pollToken : ''), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'lost standalone').length, 1);
  });
});
