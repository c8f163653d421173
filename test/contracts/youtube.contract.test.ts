/**
 * YouTube under its own description: every adapter operation runs against the simulator, whose guard
 * checks each request against contracts/youtube (the YouTube Data API v3 discovery document converted
 * to OpenAPI 3) and, here, each answer against the description's response schemas. Google's OAuth 2.0
 * endpoints and the PubSubHubbub hub are not part of the Data API description (see docs/platforms.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { YOUTUBE_API } from '../../src/providers/youtube/youtube.rules.js';
import { publishRequest, REDIRECT, startYoutubeHarness, type YoutubeHarness } from '../providers/youtube-harness.js';
import { underContract, verdictOf } from '../support/contracts.js';
import { authorize } from '../support/simulators.js';
import { assertRecordFollowsDescription } from './api-record.js';

describe('youtube contract: every request and answer against the YouTube Data API v3 description', () => {
  let h: YoutubeHarness;
  let yt: SocialProvider;
  let ctx: ProviderCallContext;

  before(async () => {
    h = await startYoutubeHarness();
    yt = h.yt;
    ctx = h.freshContext();
  });
  after(() => h.sim.close());

  test('connect: token exchange, refresh and revoke (Google OAuth 2.0) and account lookup (channels.list)', async () => {
    const { result: tokens } = await underContract(
      h.sim.ledger,
      'token exchange',
      () => authorize(yt, REDIRECT, { scopes: yt.oauth.defaultScopes }),
      ['token'],
    );
    const { result } = await underContract(h.sim.ledger, 'lookupAccounts', () => yt.lookupAccounts({ tokens }), ['youtube.channels.list']);
    assert.ok(result.length > 0);
    const { result: refreshed } = await underContract(
      h.sim.ledger,
      'token refresh',
      () => yt.oauth.refresh({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }),
      ['token'],
    );
    await underContract(h.sim.ledger, 'revoke', () => yt.oauth.revoke({ accessToken: refreshed.accessToken, externalAccountId: '' }), [
      'revoke',
    ]);
  });

  test('publish a video: resumable upload (both steps) and processing polls (videos.list)', async () => {
    const { result } = await underContract(
      h.sim.ledger,
      'publish',
      async () => {
        let r = await yt.publish(ctx, publishRequest({ notifySubscribers: false }));
        for (let i = 0; r.status === 'processing' && i < 20; i++) r = await yt.pollPublish(ctx, r.pollToken);
        return r;
      },
      ['youtube.videos.insert.upload', 'youtube.videos.insert.upload.session', 'youtube.videos.list'],
    );
    assert.equal(result.status, 'published');
    const postId = result.status === 'published' ? result.providerPostId : '';

    await underContract(h.sim.ledger, 'first comment', () => yt.postComment(ctx, { providerPostId: postId, text: 'First!' }), [
      'youtube.commentThreads.insert',
    ]);
    const comments = await underContract(h.sim.ledger, 'listComments', () => yt.listComments(ctx, { providerPostId: postId, limit: 20 }), [
      'youtube.commentThreads.list',
    ]);
    const top = comments.result[0];
    assert.ok(top);
    await underContract(
      h.sim.ledger,
      'reply',
      () => yt.postComment(ctx, { providerPostId: postId, text: 'Thanks', replyToCommentId: top.providerCommentId }),
      ['youtube.comments.insert'],
    );
    await underContract(h.sim.ledger, 'metrics', () => yt.fetchPostAnalytics(ctx, { providerPostId: postId }), ['youtube.videos.list']);
    await underContract(h.sim.ledger, 'permalink', () => yt.fetchPermalink(ctx, postId));

    const since = new Date(Date.now() - 60_000);
    const found = await underContract(
      h.sim.ledger,
      'recent-posts reconciliation',
      () =>
        yt.findRecentPost!(ctx, {
          text: 'A description',
          since,
          until: new Date(Date.now() + 60_000),
          excludeIds: [],
          mediaKinds: ['video'],
          settings: { title: 'Launch video' },
        }),
      ['youtube.channels.list', 'youtube.playlistItems.list'],
    );
    assert.equal(found.result.status, 'found');
  });

  test('tools: video categories (videoCategories.list)', async () => {
    await underContract(h.sim.ledger, 'channelCategories', () => yt.runTool(ctx, 'channelCategories', { regionCode: 'US' }), [
      'youtube.videoCategories.list',
    ]);
  });

  test('the description rejects what the real API refuses', async () => {
    const noPart = await verdictOf('youtube', {
      method: 'GET',
      path: '/youtube/v3/channels?mine=true',
      headers: { authorization: 'Bearer t' },
    });
    assert.ok(noPart.violations.some((v) => v.field === 'query.part'));
    const unknownField = await verdictOf('youtube', {
      method: 'POST',
      path: '/youtube/v3/commentThreads?part=snippet',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: { snippet: { videoId: 'v', topLevelComment: { snippet: { text: 'x' } } } },
    });
    assert.ok(unknownField.violations.some((v) => v.field.startsWith('body.snippet.topLevelComment.snippet')));
  });

  test('the simulator answers an invalid request with the Google error body', async () => {
    const res = await fetch(`${h.sim.baseUrls.apiBaseUrl}/channels?mine=true`, { headers: { authorization: `Bearer ${ctx.accessToken}` } });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: number; status: string; errors: Array<{ reason: string; location: string }> } };
    assert.equal(body.error.code, 400);
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.deepEqual(
      body.error.errors.map((e) => [e.reason, e.location]),
      [['required', 'part']],
    );
  });

  test('the API version record follows the vendored description', async () => {
    await assertRecordFollowsDescription(YOUTUBE_API);
  });
});
