import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { LOOPBACK_MEDIA_FETCH_TIMEOUT_MS, mediaFetchTimeoutMs } from '../../src/sandbox/media-fetch-timeout.js';
import { type PinterestHarness, rejectsWith, startPinterestHarness, tokensOf, videoItem } from './pinterest-harness.js';

describe('pinterest adapter: every Pinterest error maps to its category', () => {
  let h: PinterestHarness;
  let pin: SocialProvider;
  let ctx: ProviderCallContext;

  before(async () => {
    h = await startPinterestHarness();
    pin = h.pin;
  });
  after(() => h.close());
  beforeEach(() => {
    ctx = h.freshContext();
  });

  test('content errors: broken or unreachable image, unknown board, long title or description', async () => {
    const unreachable = {
      ...h.image(),
      url: 'http://127.0.0.1:1/unreachable.png',
    };
    await rejectsWith(pin.publish(ctx, h.request([h.image('/missing.png')])), 'user_content', '4');
    await rejectsWith(pin.publish(ctx, h.request([h.image('/text')])), 'user_content', '4');
    await rejectsWith(pin.publish(ctx, h.request([unreachable])), 'user_content', '4');
    await rejectsWith(pin.publish(ctx, h.request([h.image()], { boardId: '123' })), 'user_content', '5');
    await rejectsWith(pin.publish(ctx, h.request([h.image()], { title: 'x'.repeat(101) })), 'user_content', '1');
    await rejectsWith(pin.publish(ctx, h.request([h.image()], {}, 'd'.repeat(801))), 'user_content', '1');
    await rejectsWith(pin.publish(ctx, h.request([h.image()], { boardId: undefined })), 'user_content');
    // a carousel takes 2 to 5 images and nothing else
    await rejectsWith(pin.publish(ctx, h.request(Array.from({ length: 6 }, () => h.image()))), 'user_content');
    await rejectsWith(pin.publish(ctx, h.request([h.image(), videoItem()])), 'user_content');
    assert.equal(h.sim.ledger.posts.length, 0);
  });

  test('an image served slowly on loopback (this service under load) is fetched, not reported broken', async () => {
    const bound = h.sim.state.imageFetchTimeoutMs;
    h.sim.state.imageFetchTimeoutMs = 100;
    try {
      const r = await pin.publish(ctx, h.request([h.image('/slow.png')]));
      assert.equal(r.status, 'published');
    } finally {
      h.sim.state.imageFetchTimeoutMs = bound;
    }
    // remote hosts keep the platform's bound
    assert.equal(mediaFetchTimeoutMs('https://cdn.example.com/a.png', 3000), 3000);
    for (const url of ['http://127.0.0.1:9/a.png', 'http://localhost/a.png', 'http://[::1]:80/a.png'])
      assert.equal(mediaFetchTimeoutMs(url, 3000), LOOPBACK_MEDIA_FETCH_TIMEOUT_MS);
  });

  test('expired tokens are auth_expired; a token without the scope is platform_rejected', async () => {
    h.sim.failures.inject({ kind: 'expired_token', operation: 'publish' });
    await rejectsWith(pin.publish(ctx, h.request([h.image()])), 'auth_expired', '2');
    const narrow = h.sim.state.issueTokens(undefined, ['user_accounts:read']);
    await rejectsWith(pin.runTool({ ...ctx, accessToken: narrow.accessToken }, 'boardList', {}), 'platform_rejected', '3');
  });

  test('429 answers are rate_limited, with Retry-After when given', async () => {
    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'publish',
      retryAfterSeconds: 12,
    });
    const limited = await rejectsWith(pin.publish(ctx, h.request([h.image()])), 'rate_limited', '8');
    assert.equal(limited.retryAfterSeconds, 12);
    h.sim.failures.inject({ kind: 'rate_limit', operation: 'boards' });
    assert.equal((await rejectsWith(pin.runTool(ctx, 'boardList', {}), 'rate_limited')).retryAfterSeconds, 60);
    h.sim.failures.inject({ kind: 'rate_limit', operation: 'token' });
    await rejectsWith(pin.oauth.refresh({ refreshToken: 'pinr_x', accessToken: 'a' }), 'rate_limited');
  });

  test('server errors, refused connections and read timeouts are transient', async () => {
    h.sim.failures.inject({ kind: 'server_error', operation: 'user_account' });
    await rejectsWith(pin.lookupAccounts({ tokens: tokensOf(ctx.accessToken) }), 'transient', '7');
    h.sim.failures.inject({ kind: 'server_error', operation: 'media_upload' });
    await rejectsWith(pin.publish(ctx, h.request([videoItem()])), 'transient');
    h.sim.failures.inject({ kind: 'server_error', operation: 'token' });
    await rejectsWith(pin.oauth.refresh({ refreshToken: 'pinr_x', accessToken: 'a' }), 'transient');

    await rejectsWith(h.provider({ apiBaseUrl: 'http://127.0.0.1:1/v5' }).runTool(ctx, 'boardList', {}), 'transient');
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'pin_analytics',
      delayMs: 3000,
    });
    await rejectsWith(h.provider({ timeoutMs: 150 }).fetchPostAnalytics(ctx, { providerPostId: '1' }), 'transient');
  });

  test('a lost answer to Pin creation is unknown_outcome and exactly one Pin exists', async () => {
    const posts = h.sim.ledger.posts.length;
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(pin.publish(ctx, h.request([h.image()], { title: 'Lost answer' })), 'unknown_outcome');
    const created = h.sim.ledger.posts.slice(posts);
    assert.equal(created.length, 1);
    assert.equal(h.sim.state.pins.get(created[0]?.postId ?? '')?.resource.title, 'Lost answer');

    // same for a video Pin created from pollPublish
    const pending = await pin.publish(ctx, h.request([videoItem()]));
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(pin.pollPublish(ctx, pending.status === 'processing' ? pending.pollToken : ''), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.length, posts + 2);
  });
});
