import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OAuthTokens, ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { createThreadsProvider } from '../../src/providers/threads/threads.provider.js';
import { THREADS_ENDPOINTS } from '../../src/providers/threads/threads.rules.js';
import { connect, ctxFor, type MetaHarness, postOf, REDIRECT_URI, rejectsWith, startMetaHarness, untilPublished } from './meta-harness.js';

describe('threads adapter against the Meta simulator', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let tokens: OAuthTokens;
  let th: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createThreadsProvider(h.config('threads'));
    tokens = await connect(provider);
    const [account] = await provider.lookupAccounts({ tokens });
    assert.equal(account?.handle, 'sandbox.threads');
    th = ctxFor(tokens.accessToken, account!.externalAccountId);
  });
  after(() => h.close());

  it('builds the Threads authorization URL and exchanges, extends and refreshes tokens', async () => {
    const real = createThreadsProvider({
      ...h.config('threads'),
      ...THREADS_ENDPOINTS,
    });
    const url = new URL(
      real.oauth.authorizationUrl({
        state: 'q',
        redirectUri: REDIRECT_URI,
        scopes: ['threads_basic', 'threads_content_publish'],
      }),
    );
    assert.equal(`${url.origin}${url.pathname}`, 'https://threads.net/oauth/authorize');
    assert.equal(url.searchParams.get('scope'), 'threads_basic,threads_content_publish');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.match(tokens.accessToken, /^THAA/);
    assert.equal(tokens.extra.user_id, h.sim.state.seed.threadsUserId);
    assert.ok((tokens.expiresAt?.getTime() ?? 0) > Date.now() + 59 * 86_400_000);
    const refreshed = await provider.oauth.refresh({
      accessToken: tokens.accessToken,
      refreshToken: null,
    });
    assert.notEqual(refreshed.accessToken, tokens.accessToken);
    assert.equal((await provider.lookupAccounts({ tokens: refreshed }))[0]?.externalAccountId, th.externalAccountId);
  });

  it('publishes a text post at once and image/carousel posts through containers', async () => {
    const text = await provider.publish(th, {
      text: 'Hello Threads',
      media: [],
      settings: { replyControl: 'accounts_you_follow' },
      idempotencyKey: 't1',
    });
    assert.equal(text.status, 'published', 'text containers are ready immediately');
    assert.match(text.status === 'published' ? (text.url ?? '') : '', /^https:\/\/www\.threads\.net\/@sandbox\.threads\/post\//);
    const image = await provider.publish(th, postOf('Pic', 't2', [h.image()]));
    assert.equal(image.status, 'processing');
    await untilPublished(provider, th, image);
    const carousel = await untilPublished(provider, th, await provider.publish(th, postOf('Both', 't3', [h.image(), h.video()])));
    const posts = h.sim.ledger.posts.filter((p) => p.platform === 'threads');
    assert.deepEqual(
      posts.map((p) => [p.text, p.mediaCount]),
      [
        ['Hello Threads', 0],
        ['Pic', 1],
        ['Both', 2],
      ],
    );
    assert.equal(posts[2]?.postId, carousel.providerPostId);
  });

  it('counts emojis by UTF-8 bytes against the 500 limit', async () => {
    const ok = await provider.publish(th, postOf('😀'.repeat(125), 'em1'));
    assert.equal(ok.status, 'published');
    await rejectsWith(provider.publish(th, postOf('😀'.repeat(126), 'em2')), 'user_content');
  });

  it('rejects content errors: over 500 characters, unreachable video', async () => {
    await rejectsWith(provider.publish(th, postOf('x'.repeat(501), 't4')), 'user_content');
    const attempt = async () => untilPublished(provider, th, await provider.publish(th, postOf('v', 't5', [h.video('none.mp4')])));
    const err = await rejectsWith(attempt(), 'user_content');
    assert.match(err.message, /FAILED_DOWNLOADING_VIDEO/);
  });

  it('replies (first comment), lists replies and reads insights', async () => {
    const post = await provider.publish(th, postOf('Reply to me', 't6'));
    assert.equal(post.status, 'published');
    const postId = post.status === 'published' ? post.providerPostId : '';
    const reply = await provider.postComment(th, {
      providerPostId: postId,
      text: 'First reply',
    });
    await provider.postComment(th, {
      providerPostId: postId,
      text: 'Nested',
      replyToCommentId: reply.providerCommentId,
    });
    const replies = await provider.listComments(th, {
      providerPostId: postId,
      limit: 10,
    });
    assert.deepEqual(
      replies.map((r) => [r.body, r.parentProviderCommentId]),
      // the whole conversation: a top-level reply has no parent comment, a nested one names its parent
      [
        ['First reply', null],
        ['Nested', reply.providerCommentId],
      ],
    );
    const stored = h.sim.state.get(postId);
    assert.ok(stored?.kind === 'post');
    Object.assign(stored.stats, {
      views: 300,
      likes: 12,
      reposts: 2,
      quotes: 1,
      shares: 4,
    });
    const analytics = await provider.fetchPostAnalytics(th, {
      providerPostId: postId,
    });
    assert.deepEqual(analytics.metrics, {
      views: 300,
      likes: 12,
      replies: 1,
      reposts: 2,
      quotes: 1,
      shares: 4,
    });
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'Reply to me').length, 1);
    assert.deepEqual(
      h.sim.ledger.comments.filter((c) => c.postId === postId).map((c) => c.text),
      ['First reply'],
    );
  });

  it('runs pageProfile and mentionSearch (profile lookup)', async () => {
    const [me] = await provider.runTool(th, 'pageProfile', {});
    assert.equal(me?.handle, 'sandbox.threads');
    const [other] = await provider.runTool(th, 'mentionSearch', {
      query: 'other.threads',
    });
    assert.equal(other?.followersCount, 9100);
    assert.equal(other?.verified, true);
    assert.deepEqual(await provider.runTool(th, 'mentionSearch', { query: 'missing.user' }), []);
    const noDiscovery = await connect(provider, ['threads_basic']);
    await rejectsWith(
      provider.runTool(ctxFor(noDiscovery.accessToken, th.externalAccountId), 'mentionSearch', { query: 'other.threads' }),
      'platform_rejected',
    );
  });

  it('maps failures to categories', async () => {
    const post = postOf('failure case', 'e');
    h.sim.failures.inject({ kind: 'expired_token', operation: 'container' });
    await rejectsWith(provider.publish(th, post), 'auth_expired');
    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'publish',
      retryAfterSeconds: 120,
    });
    const limited = await rejectsWith(provider.publish(th, post), 'rate_limited');
    assert.equal(limited.retryAfterSeconds, 120);
    assert.equal(limited.providerCode, '4');
    h.sim.failures.inject({ kind: 'server_error', operation: 'read' });
    await rejectsWith(provider.publish(th, post), 'transient');
    const noPublish = await connect(provider, ['threads_basic']);
    await rejectsWith(provider.publish(ctxFor(noPublish.accessToken, th.externalAccountId), post), 'platform_rejected');
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'failure case').length, 0);
  });

  it('never treats a publish without an answer as retryable', async () => {
    const quick = createThreadsProvider(h.config('threads', { timeoutMs: 150 }));
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'publish',
      delayMs: 1_000,
    });
    await rejectsWith(quick.publish(th, postOf('timed out publish', 'to')), 'unknown_outcome');
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'container',
      delayMs: 1_000,
    });
    await rejectsWith(quick.publish(th, postOf('timed out container', 'tc')), 'transient');
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(provider.publish(th, postOf('lost threads answer', 'lo')), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'lost threads answer').length, 1);
  });
});
