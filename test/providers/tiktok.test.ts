import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTiktokProvider } from '../../src/providers/tiktok/tiktok.provider.js';
import { TIKTOK_CAPABILITY, TIKTOK_ENDPOINTS } from '../../src/providers/tiktok/tiktok.rules.js';
import { TiktokSimulatorState, tiktokSimulatorBaseUrls, tiktokSimulatorPlugin } from '../../src/sandbox/simulators/tiktok.simulator.js';
import { authorize, ctxFor, mountSimulator } from '../support/simulators.js';
import {
  expectProviderError,
  imageItem,
  MiB,
  REDIRECT,
  request,
  startTiktokHarness,
  type TiktokHarness,
  videoItem,
} from './tiktok-harness.js';

describe('TikTok adapter against the simulator', () => {
  let h: TiktokHarness;
  before(async () => {
    h = await startTiktokHarness();
  });
  after(() => h.sim.close());
  beforeEach(() => h.sim.failures.clear());

  it('builds the Login Kit authorization URL', () => {
    assert.deepEqual(TIKTOK_ENDPOINTS, {
      apiBaseUrl: 'https://open.tiktokapis.com/v2',
      authBaseUrl: 'https://www.tiktok.com',
      uploadBaseUrl: 'https://open-upload.tiktokapis.com',
    });
    const url = new URL(
      h.provider.oauth.authorizationUrl({
        state: 'abc',
        redirectUri: REDIRECT,
        scopes: ['user.info.basic', 'video.publish'],
      }),
    );
    assert.equal(url.pathname, '/v2/auth/authorize/');
    assert.equal(url.searchParams.get('client_key'), h.sim.state.clientKey);
    assert.equal(url.searchParams.get('scope'), 'user.info.basic,video.publish');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('redirect_uri'), REDIRECT);
    assert.equal(url.searchParams.get('state'), 'abc');
    assert.equal(h.provider.oauth.supportsPkce, false);
  });

  it('exchanges the code, looks up the account, refreshes and revokes', async () => {
    const tokens = await h.connect(undefined, 'brand.one');
    assert.ok(tokens.accessToken.startsWith('act.'));
    assert.ok(tokens.refreshToken);
    assert.ok(tokens.expiresAt && tokens.expiresAt.getTime() > Date.now() + 80_000_000);
    assert.deepEqual(tokens.scopes, h.provider.oauth.defaultScopes);
    const accounts = await h.provider.lookupAccounts({ tokens });
    assert.equal(accounts.length, 1);
    assert.equal(accounts[0]?.externalAccountId, tokens.extra.open_id);
    assert.equal(accounts[0]?.handle, 'brand.one');

    h.sim.state.expireAccessToken(tokens.accessToken);
    await expectProviderError(h.provider.lookupAccounts({ tokens }), 'auth_expired', 'access_token_invalid');
    const refreshed = await h.provider.oauth.refresh({
      refreshToken: tokens.refreshToken,
      accessToken: tokens.accessToken,
    });
    assert.notEqual(refreshed.accessToken, tokens.accessToken);
    assert.equal((await h.provider.lookupAccounts({ tokens: refreshed }))[0]?.handle, 'brand.one');

    await h.provider.oauth.revoke({
      accessToken: refreshed.accessToken,
      externalAccountId: accounts[0]!.externalAccountId,
    });
    await expectProviderError(h.provider.lookupAccounts({ tokens: refreshed }), 'auth_expired');
    await expectProviderError(
      h.provider.oauth.refresh({
        refreshToken: tokens.refreshToken,
        accessToken: '',
      }),
      'auth_expired',
      'invalid_grant',
    );
  });

  it('publishes a small video: creator_info, init, one chunk, status fetch', async () => {
    const ctx = await h.channel('small.video');
    const before = h.sim.ledger.posts.length;
    const result = await h.provider.publish(ctx, request([videoItem(300_000)]));
    assert.equal(result.status, 'processing');
    assert.equal(h.sim.ledger.count('upload') > 0, true);
    const done = await h.pollUntilDone(ctx, result.status === 'processing' ? result.pollToken : '');
    assert.match(done.providerPostId, /^\d+$/);
    assert.equal(done.url, `https://www.tiktok.com/@small.video/video/${done.providerPostId}`);
    assert.equal(h.sim.ledger.posts.length, before + 1);
    const publish = [...h.sim.state.publishes.values()].at(-1)!;
    assert.deepEqual([publish.videoSize, publish.chunkSize, publish.totalChunkCount], [300_000, 300_000, 1]);
    assert.equal(await h.provider.fetchPermalink(ctx, done.providerPostId), done.url);
  });

  it('uploads a large video in sequential chunks with the trailing bytes in the last one', async () => {
    const ctx = await h.channel('big.video');
    const uploadsBefore = h.sim.ledger.count('upload');
    const result = await h.provider.publish(ctx, request([videoItem(11 * MiB + 123)]));
    assert.equal(h.sim.ledger.count('upload') - uploadsBefore, 2);
    const publish = [...h.sim.state.publishes.values()].at(-1)!;
    assert.deepEqual([publish.chunkSize, publish.totalChunkCount, publish.receivedBytes], [5 * MiB, 2, 11 * MiB + 123]);
    assert.equal(result.status, 'processing');
    const done = await h.pollUntilDone(ctx, result.status === 'processing' ? result.pollToken : '');
    assert.ok(done.providerPostId);
  });

  it('publishes photos with PULL_FROM_URL, and SELF_ONLY posts without a public id', async () => {
    const ctx = await h.channel('photo.creator');
    const result = await h.provider.publish(ctx, request([imageItem(1), imageItem(2)], { privacy_level: 'SELF_ONLY' }, 'two photos'));
    assert.equal(result.status, 'processing');
    const publish = [...h.sim.state.publishes.values()].at(-1)!;
    assert.equal(publish.kind, 'photo');
    assert.equal(publish.mediaCount, 2);
    const done = await h.pollUntilDone(ctx, result.status === 'processing' ? result.pollToken : '');
    assert.equal(done.providerPostId, publish.publishId);
    assert.equal(done.url, null);
  });

  it('reads video metrics, offers privacy options, and refuses comments', async () => {
    const ctx = await h.channel('metrics');
    const r = await h.provider.publish(ctx, request([videoItem(1500)]));
    const done = await h.pollUntilDone(ctx, r.status === 'processing' ? r.pollToken : '');
    Object.assign(h.sim.state.videos.get(done.providerPostId)!, {
      viewCount: 120,
      likeCount: 9,
      commentCount: 3,
      shareCount: 2,
    });
    const analytics = await h.provider.fetchPostAnalytics(ctx, {
      providerPostId: done.providerPostId,
    });
    assert.deepEqual(analytics.metrics, {
      views: 120,
      likes: 9,
      comments: 3,
      shares: 2,
    });

    const options = await h.provider.runTool(ctx, 'privacyOptions', {});
    assert.deepEqual(
      options.map((o) => o.value),
      ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    );
    assert.equal(options[0]?.maxVideoPostDurationSec, 600);
    assert.deepEqual(TIKTOK_CAPABILITY.toolNames, ['privacyOptions']);
    await expectProviderError(h.provider.runTool(ctx, 'mentionSearch', {}), 'platform_rejected');
    await expectProviderError(
      h.provider.postComment(ctx, {
        providerPostId: done.providerPostId,
        text: 'hi',
      }),
      'platform_rejected',
    );
    await expectProviderError(
      h.provider.listComments(ctx, {
        providerPostId: done.providerPostId,
        limit: 10,
      }),
      'platform_rejected',
    );
  });

  it('works mounted under a prefix of another app (sandbox mode)', async () => {
    const state = new TiktokSimulatorState({ processingDelayMs: 5 });
    const sim = await mountSimulator(tiktokSimulatorPlugin, '/sandbox/tiktok', { state }, (host) => {
      host.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, _body, done) =>
        done(null, { host: 'parser' }),
      );
      host.get('/health', async () => ({ ok: true }));
    });
    try {
      const urls = tiktokSimulatorBaseUrls(sim.origin, '/sandbox/tiktok');
      assert.equal(urls.apiBaseUrl, `${sim.origin}/sandbox/tiktok/v2`);
      const mounted = createTiktokProvider({
        clientId: state.clientKey,
        clientSecret: state.clientSecret,
        redirectUri: REDIRECT,
        ...urls,
        timeoutMs: 5000,
      });
      const tokens = await authorize(mounted, REDIRECT, { state: 'm1', scopes: mounted.oauth.defaultScopes });
      const ctx = ctxFor(tokens.accessToken);
      const r = await mounted.publish(ctx, request([videoItem(2000)]));
      assert.equal(r.status, 'processing');
      await new Promise((done) => setTimeout(done, 20));
      const done = await mounted.pollPublish(ctx, r.status === 'processing' ? r.pollToken : '');
      assert.equal(done.status, 'published');
      assert.equal(sim.ledger.posts.length, 1);
      assert.ok(sim.ledger.requests.some((q) => q.url.startsWith('/sandbox/tiktok/upload/video/')));
    } finally {
      await sim.close();
    }
  });
});
