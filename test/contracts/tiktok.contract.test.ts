/**
 * TikTok under the description written from its reference pages (contracts/tiktok; TikTok publishes no
 * machine-readable one): every adapter operation runs against the simulator, whose guard checks each
 * request (JSON bodies, the chunk PUTs to the upload host, the OAuth forms) and, here, each answer.
 * TikTok has no comments API: the adapter refuses comments without calling it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ProviderCallContext } from '../../src/providers/provider.js';
import { TIKTOK_API } from '../../src/providers/tiktok/tiktok.rules.js';
import { imageItem, MiB, request, startTiktokHarness, type TiktokHarness, videoItem } from '../providers/tiktok-harness.js';
import { underContract, verdictOf } from '../support/contracts.js';
import { assertRecordFollowsDescription } from './api-record.js';

describe('tiktok contract: every request and answer against the TikTok API v2 description', () => {
  let h: TiktokHarness;
  let ctx: ProviderCallContext;

  before(async () => {
    h = await startTiktokHarness();
  });
  after(() => h.sim.close());

  test('connect: code exchange, refresh, user info', async () => {
    const { result: tokens } = await underContract(h.sim.ledger, 'token exchange', () => h.connect(), ['oauthToken']);
    await underContract(h.sim.ledger, 'account lookup', () => h.provider.lookupAccounts({ tokens }), ['userInfo']);
    const { result: refreshed } = await underContract(
      h.sim.ledger,
      'token refresh',
      () => h.provider.oauth.refresh({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken }),
      ['oauthToken'],
    );
    ctx = { accessToken: refreshed.accessToken, externalAccountId: tokens.extra.open_id ?? '', channelSettings: {} };
  });

  test('publish a video in chunks and a photo carousel, polling their status', async () => {
    const video = await underContract(
      h.sim.ledger,
      'publish video',
      async () => {
        const r = await h.provider.publish(ctx, request([videoItem(12 * MiB)]));
        return r.status === 'processing' ? h.pollUntilDone(ctx, r.pollToken) : r;
      },
      ['creatorInfoQuery', 'videoInit', 'uploadVideoChunk', 'publishStatusFetch'],
    );
    assert.equal(video.result.status, 'published');
    // the id arrives as an int64 JSON number beyond 2^53: it must be read digit for digit
    assert.ok(
      [...h.sim.state.publishes.values()].some((p) => p.videoId === video.result.providerPostId),
      `post id ${video.result.providerPostId} is not the one TikTok answered`,
    );
    const photos = await underContract(
      h.sim.ledger,
      'publish photos',
      async () => {
        const r = await h.provider.publish(ctx, request([imageItem(1), imageItem(2)], { privacy_level: 'SELF_ONLY' }, 'two photos'));
        return r.status === 'processing' ? h.pollUntilDone(ctx, r.pollToken) : r;
      },
      ['creatorInfoQuery', 'contentInit', 'publishStatusFetch'],
    );
    assert.equal(photos.result.status, 'published');

    const postId = video.result.providerPostId;
    await underContract(h.sim.ledger, 'metrics', () => h.provider.fetchPostAnalytics(ctx, { providerPostId: postId }), ['videoQuery']);
    await underContract(h.sim.ledger, 'permalink', () => h.provider.fetchPermalink(ctx, postId), ['videoQuery']);
    const found = await underContract(
      h.sim.ledger,
      'recent-posts reconciliation',
      () =>
        h.provider.findRecentPost!(ctx, {
          text: 'hello tiktok',
          since: new Date(Date.now() - 60_000),
          until: new Date(Date.now() + 60_000),
          excludeIds: [],
          mediaKinds: ['video'],
          settings: { privacy_level: 'PUBLIC_TO_EVERYONE' },
        }),
      ['videoList'],
    );
    assert.equal(found.result.status, 'found');
    await underContract(h.sim.ledger, 'privacy options tool', () => h.provider.runTool(ctx, 'privacyOptions', {}), ['creatorInfoQuery']);
  });

  test('revoke', async () => {
    const tokens = await h.connect();
    await underContract(h.sim.ledger, 'revoke', () => h.provider.oauth.revoke({ accessToken: tokens.accessToken, externalAccountId: '' }), [
      'oauthRevoke',
    ]);
  });

  test('the description rejects what the TikTok API refuses', async () => {
    const badPrivacy = await verdictOf('tiktok', {
      method: 'POST',
      path: '/v2/post/publish/video/init/',
      headers: { authorization: 'Bearer act.x', 'content-type': 'application/json; charset=UTF-8' },
      body: {
        post_info: { privacy_level: 'PUBLIC' },
        source_info: { source: 'FILE_UPLOAD', video_size: 10, chunk_size: 10, total_chunk_count: 1 },
      },
    });
    assert.deepEqual(
      badPrivacy.violations.map((v) => v.field),
      ['body.post_info.privacy_level'],
    );
    const unknownField = await verdictOf('tiktok', {
      method: 'GET',
      path: '/v2/user/info/?fields=open_id,nickname',
      headers: { authorization: 'Bearer act.x' },
    });
    assert.ok(unknownField.violations.some((v) => v.field.startsWith('query.fields')));
  });

  test('the simulator answers an invalid request with the TikTok error envelope', async () => {
    const res = await fetch(`${h.sim.url}/v2/post/publish/status/fetch/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.accessToken}`, 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ publishId: 'p' }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; message: string; log_id: string } };
    assert.equal(body.error.code, 'invalid_params');
    assert.match(body.error.message, /publish_id/);
    assert.ok(body.error.log_id);
  });

  test('the API version record follows the vendored description', async () => {
    await assertRecordFollowsDescription(TIKTOK_API);
  });
});
