import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInstagramBusinessProvider } from '../../src/providers/instagram-business/instagram-business.provider.js';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { connect, ctxFor, type MetaHarness, postOf, rejectsWith, startMetaHarness, untilPublished } from './meta-harness.js';

describe('instagram_business adapter against the Meta simulator', () => {
  let h: MetaHarness;
  let provider: SocialProvider;
  let ig: ProviderCallContext;

  before(async () => {
    h = await startMetaHarness();
    provider = createInstagramBusinessProvider(h.config('instagram_business'));
    const tokens = await connect(provider);
    const accounts = await provider.lookupAccounts({ tokens });
    assert.equal(accounts.length, 1, 'only one of the two pages has a linked Instagram account');
    assert.equal(accounts[0]?.handle, 'sandbox.coffee');
    assert.equal(accounts[0]?.accountAccessToken, undefined);
    ig = ctxFor(tokens.accessToken, accounts[0]!.externalAccountId);
  });
  after(() => h.close());

  it('asks Facebook Login for the Instagram permissions', () => {
    const url = new URL(
      provider.oauth.authorizationUrl({
        state: 'abc',
        redirectUri: 'https://app.example/cb',
        scopes: [],
      }),
    );
    assert.match(url.pathname, /\/dialog\/oauth$/);
    assert.deepEqual(url.searchParams.get('scope')?.split(','), provider.oauth.defaultScopes);
    assert.ok(provider.capability.requiredScopes.includes('instagram_content_publish'));
  });

  it('publishes an image through a container, answering processing until FINISHED', async () => {
    const before = h.sim.ledger.posts.length;
    const first = await provider.publish(ig, postOf('Latte art #coffee', 'i1', [h.image()]));
    assert.equal(first.status, 'processing', 'container is IN_PROGRESS right after creation');
    const done = await untilPublished(provider, ig, first);
    assert.match(done.url ?? '', /^https:\/\/www\.instagram\.com\/p\/[\w-]+\/$/);
    assert.equal(h.sim.ledger.posts.length, before + 1);
    assert.equal(h.sim.ledger.posts.at(-1)?.platform, 'instagram_business');
    assert.equal(h.sim.ledger.count('publish'), 1);
  });

  it('publishes a reel and a mixed carousel', async () => {
    const reel = await untilPublished(
      provider,
      ig,
      await provider.publish(ig, {
        text: 'Reel',
        media: [h.video()],
        settings: { shareToFeed: true },
        idempotencyKey: 'i2',
      }),
    );
    const reelPost = h.sim.state.get(reel.providerPostId);
    assert.ok(reelPost?.kind === 'post' && reelPost.mediaType === 'VIDEO');
    const carousel = await untilPublished(
      provider,
      ig,
      await provider.publish(ig, {
        text: 'Carousel',
        media: [h.image(), h.video(), h.image()],
        settings: {},
        idempotencyKey: 'i3',
      }),
    );
    const stored = h.sim.state.get(carousel.providerPostId);
    assert.ok(stored?.kind === 'post');
    assert.equal(stored.mediaType, 'CAROUSEL_ALBUM');
    assert.equal(stored.mediaCount, 3);
  });

  it('fails a container whose media cannot be fetched', async () => {
    await rejectsWith(provider.publish(ig, postOf('x', 'i4', [h.image('gone.jpg?sig=s3cr3t')])), 'user_content');
    const attempt = async () => untilPublished(provider, ig, await provider.publish(ig, postOf('x', 'i5', [h.video('gone.mp4')])));
    const err = await rejectsWith(attempt(), 'user_content');
    assert.match(err.message, /2207052/);
    const first = await rejectsWith(provider.publish(ig, postOf('x', 'i4b', [h.image('gone.jpg?sig=s3cr3t')])), 'user_content');
    assert.match(first.message, /could not be fetched/);
    assert.doesNotMatch(`${first.message} ${JSON.stringify(first.providerResponse)}`, /s3cr3t/);
  });

  it('rejects a caption over 2200 characters and a post without media as user_content', async () => {
    await rejectsWith(provider.publish(ig, postOf('a'.repeat(2201), 'i6', [h.image()])), 'user_content');
    await rejectsWith(provider.publish(ig, postOf('no media', 'i7')), 'user_content');
    const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ');
    await rejectsWith(provider.publish(ig, postOf(tags, 'i7b', [h.image()])), 'user_content');
  });

  it('checks post types and lets an unpublished container expire', async () => {
    const image = h.image();
    await rejectsWith(
      provider.publish(ig, {
        text: 'r',
        media: [image],
        settings: { postType: 'reel' },
        idempotencyKey: 'pt1',
      }),
      'user_content',
    );
    await rejectsWith(
      provider.publish(ig, {
        text: 's',
        media: [image, image],
        settings: { postType: 'story' },
        idempotencyKey: 'pt2',
      }),
      'user_content',
    );
    const first = await provider.publish(ig, postOf('never published', 'pt3', [image]));
    assert.equal(first.status, 'processing');
    h.sim.state.advanceClock(25 * 3_600_000);
    try {
      await rejectsWith(provider.pollPublish(ig, first.status === 'processing' ? first.pollToken : ''), 'platform_rejected');
    } finally {
      h.sim.state.advanceClock(-25 * 3_600_000);
    }
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'never published').length, 0);
  });

  it('comments, replies, lists comments and reads insights', async () => {
    const post = await untilPublished(provider, ig, await provider.publish(ig, postOf('Talk to me', 'i8', [h.image()])));
    const first = await provider.postComment(ig, {
      providerPostId: post.providerPostId,
      text: 'First comment',
    });
    await provider.postComment(ig, {
      providerPostId: post.providerPostId,
      text: 'Reply',
      replyToCommentId: first.providerCommentId,
    });
    const top = await provider.listComments(ig, {
      providerPostId: post.providerPostId,
      limit: 25,
    });
    assert.deepEqual(
      top.map((c) => [c.body, c.authorHandle]),
      // top-level comments, each followed by its replies
      [
        ['First comment', 'sandbox.coffee'],
        ['Reply', 'sandbox.coffee'],
      ],
    );
    const stored = h.sim.state.get(post.providerPostId);
    assert.ok(stored?.kind === 'post');
    Object.assign(stored.stats, {
      views: 90,
      reach: 70,
      likes: 8,
      shares: 1,
      saved: 2,
    });
    const analytics = await provider.fetchPostAnalytics(ig, {
      providerPostId: post.providerPostId,
    });
    assert.deepEqual(analytics.metrics, {
      views: 90,
      reach: 70,
      likes: 8,
      comments: 2,
      shares: 1,
      saved: 2,
      total_interactions: 13,
    });
  });

  it('runs pageProfile and business discovery', async () => {
    const [profile] = await provider.runTool(ig, 'pageProfile', {});
    assert.equal(profile?.handle, 'sandbox.coffee');
    const found = await provider.runTool(ig, 'mentionSearch', {
      query: '@other.coffee',
    });
    assert.equal(found[0]?.displayName, 'Other Coffee Roasters');
    assert.equal(found[0]?.followersCount, 48000);
    assert.deepEqual(await provider.runTool(ig, 'mentionSearch', { query: 'nobody.here' }), []);
  });

  it('maps failures: expired token, rate limit, 5xx, missing permission, daily limit', async () => {
    const post = postOf('e', 'e', [h.image()]);
    h.sim.failures.inject({ kind: 'expired_token', operation: 'container' });
    await rejectsWith(provider.publish(ig, post), 'auth_expired');
    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'container',
      retryAfterSeconds: 300,
    });
    assert.equal((await rejectsWith(provider.publish(ig, post), 'rate_limited')).retryAfterSeconds, 300);
    h.sim.failures.inject({ kind: 'server_error', operation: 'container' });
    await rejectsWith(provider.publish(ig, post), 'transient');
    const limited = await connect(provider, ['instagram_basic', 'pages_show_list']);
    await rejectsWith(provider.publish(ctxFor(limited.accessToken, ig.externalAccountId), post), 'platform_rejected');
    h.sim.state.publishLimits.instagram = 0;
    try {
      const first = await provider.publish(ig, post);
      const err = await rejectsWith(untilPublished(provider, ig, first), 'rate_limited');
      assert.equal(err.retryAfterSeconds, 3600);
    } finally {
      h.sim.state.publishLimits.instagram = 100;
    }
  });

  it('expires tokens with the clock: auth_expired', async () => {
    const tokens = await connect(provider);
    h.sim.state.advanceClock(61 * 86_400_000);
    try {
      await rejectsWith(provider.lookupAccounts({ tokens }), 'auth_expired');
    } finally {
      h.sim.state.advanceClock(-61 * 86_400_000);
    }
  });

  it('reports a lost media_publish answer as unknown_outcome; the post exists once', async () => {
    const first = await provider.publish(ig, postOf('Lost IG answer', 'lost', [h.image()]));
    assert.equal(first.status, 'processing');
    await new Promise((r) => setTimeout(r, 200));
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(provider.pollPublish(ig, first.status === 'processing' ? first.pollToken : ''), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'Lost IG answer').length, 1);
    // polling again never publishes twice: the container reports PUBLISHED
    await rejectsWith(provider.pollPublish(ig, first.status === 'processing' ? first.pollToken : ''), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'Lost IG answer').length, 1);
  });
});
