import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { publishRequest, rejectsWith, startYoutubeHarness, tokensOf, type YoutubeHarness } from './youtube-harness.js';

describe('youtube adapter: every Google error maps to its category', () => {
  let h: YoutubeHarness;
  let yt: SocialProvider;
  let ctx: ProviderCallContext;

  before(async () => {
    h = await startYoutubeHarness();
    yt = h.yt;
  });
  after(() => h.sim.close());
  beforeEach(() => {
    ctx = h.freshContext();
  });

  test('invalid content is user_content with the YouTube reason, and no bytes are sent', async () => {
    await rejectsWith(yt.publish(ctx, publishRequest({ title: 't'.repeat(101) })), 'user_content', 'invalidTitle');
    await rejectsWith(yt.publish(ctx, publishRequest({ title: 'a <b> title' })), 'user_content', 'invalidTitle');
    // 2,000 characters but 6,000 bytes: the limit is in bytes
    await rejectsWith(yt.publish(ctx, publishRequest({}, '€'.repeat(2000))), 'user_content', 'invalidDescription');
    await rejectsWith(yt.publish(ctx, publishRequest({ categoryId: '18' })), 'user_content', 'invalidCategoryId');
    await rejectsWith(yt.publish(ctx, { ...publishRequest(), media: [] }), 'user_content');
    await rejectsWith(yt.publish(ctx, publishRequest({ title: '' })), 'user_content');
    assert.equal(h.sim.ledger.count('publish'), 0);
    assert.equal(h.sim.ledger.posts.length, 0);
  });

  test('quota and rate limits are rate_limited with a retry delay', async () => {
    h.sim.failures.inject({ kind: 'rate_limit', operation: 'upload_init' });
    const quota = await rejectsWith(yt.publish(ctx, publishRequest()), 'rate_limited', 'quotaExceeded');
    // the daily quota resets at midnight Pacific Time
    assert.ok((quota.retryAfterSeconds ?? 0) > 0 && (quota.retryAfterSeconds ?? 0) <= 86_400);

    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'channels',
      retryAfterSeconds: 7,
    });
    const short = await rejectsWith(yt.lookupAccounts({ tokens: tokensOf(ctx.accessToken) }), 'rate_limited', 'rateLimitExceeded');
    assert.equal(short.retryAfterSeconds, 7);

    h.sim.state.quotaRemaining = 1000; // less than the 1,600 units of an upload
    await rejectsWith(yt.publish(ctx, publishRequest()), 'rate_limited', 'quotaExceeded');
  });

  test('expired tokens are auth_expired; a channel not permitted to upload is platform_rejected', async () => {
    h.sim.failures.inject({ kind: 'expired_token', operation: 'publish' });
    await rejectsWith(yt.publish(ctx, publishRequest()), 'auth_expired', 'authError');
    h.sim.failures.inject({ kind: 'expired_token', operation: 'token' });
    await rejectsWith(yt.oauth.refresh({ refreshToken: '1//x', accessToken: 'y' }), 'auth_expired', 'invalid_grant');

    h.sim.state.defaultChannel.uploadsForbidden = true;
    try {
      await rejectsWith(yt.publish(ctx, publishRequest()), 'platform_rejected', 'forbidden');
    } finally {
      h.sim.state.defaultChannel.uploadsForbidden = false;
    }
    // a Google account without a channel: no account to connect, uploads refused for good
    const noChannel = h.sim.state.issueTokens('UCnochannel');
    assert.deepEqual(await yt.lookupAccounts({ tokens: tokensOf(noChannel.accessToken) }), []);
    await rejectsWith(
      yt.publish({ ...ctx, accessToken: noChannel.accessToken }, publishRequest()),
      'platform_rejected',
      'youtubeSignupRequired',
    );
    const readOnly = h.sim.state.issueTokens(undefined, ['https://www.googleapis.com/auth/youtube.readonly']);
    await rejectsWith(
      yt.postComment({ ...ctx, accessToken: readOnly.accessToken }, { providerPostId: 'v', text: 'hi' }),
      'platform_rejected',
      'insufficientPermissions',
    );
  });

  test('server errors, refused connections and read timeouts are transient', async () => {
    h.sim.failures.inject({ kind: 'server_error', operation: 'videos_list' });
    await rejectsWith(yt.fetchPostAnalytics(ctx, { providerPostId: 'abc' }), 'transient', 'backendError');
    h.sim.failures.inject({ kind: 'server_error', operation: 'token' });
    await rejectsWith(yt.oauth.refresh({ refreshToken: 'x', accessToken: 'y' }), 'transient');

    const offline = h.provider({ apiBaseUrl: 'http://127.0.0.1:1/youtube/v3' });
    await rejectsWith(offline.lookupAccounts({ tokens: tokensOf(ctx.accessToken) }), 'transient');
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'videos_list',
      delayMs: 3000,
    });
    await rejectsWith(h.provider({ timeoutMs: 150 }).fetchPostAnalytics(ctx, { providerPostId: 'abc' }), 'transient');
  });

  test('a lost answer to the final upload PUT is unknown_outcome and exactly one video exists', async () => {
    const before = h.sim.ledger.posts.length;
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await rejectsWith(yt.publish(ctx, publishRequest({ title: 'Lost answer' })), 'unknown_outcome');
    const created = h.sim.ledger.posts.slice(before);
    assert.equal(created.length, 1);
    assert.equal(h.sim.state.videos.get(created[0]?.postId ?? '')?.resource.snippet.title, 'Lost answer');

    // a PUT that gets no answer in time is also unknown_outcome (the upload may still complete)
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'publish',
      delayMs: 3000,
    });
    await rejectsWith(h.provider({ timeoutMs: 500 }).publish(ctx, publishRequest()), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.length, before + 1);
  });
});
