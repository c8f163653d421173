import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { createPinterestProvider } from '../../src/providers/pinterest/pinterest.provider.js';
import { PINTEREST_ENDPOINTS } from '../../src/providers/pinterest/pinterest.rules.js';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import {
  PinterestSimulatorState,
  pinterestSimulatorBaseUrls,
  pinterestSimulatorPlugin,
} from '../../src/sandbox/simulators/pinterest.simulator.js';
import { authorize, ctxFor, mountSimulator } from '../support/simulators.js';
import { type PinterestHarness, REDIRECT, rejectsWith, startPinterestHarness, tokensOf, videoItem } from './pinterest-harness.js';

describe('pinterest adapter: OAuth, image and video Pins, boards, analytics', () => {
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

  test('authorization URL: www.pinterest.com/oauth/ with comma-separated scopes and state', () => {
    const url = new URL(
      pin.oauth.authorizationUrl({
        state: 'st-1',
        redirectUri: REDIRECT,
        scopes: pin.oauth.defaultScopes,
      }),
    );
    assert.equal(url.origin + url.pathname, `${h.sim.url}/web/oauth/`);
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      client_id: 'pin-app',
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'boards:read,pins:read,pins:write,user_accounts:read',
      state: 'st-1',
    });
    assert.equal(pin.oauth.supportsPkce, false);
    const prod = createPinterestProvider({
      clientId: 'c',
      clientSecret: 's',
      redirectUri: REDIRECT,
      ...PINTEREST_ENDPOINTS,
      timeoutMs: 1000,
    });
    assert.ok(
      prod.oauth.authorizationUrl({ state: 's', redirectUri: REDIRECT, scopes: [] }).startsWith('https://www.pinterest.com/oauth/?'),
    );
  });

  test('consent redirect, code exchange with Basic client auth, account lookup', async () => {
    const authUrl = pin.oauth.authorizationUrl({
      state: 'st-2',
      redirectUri: REDIRECT,
      scopes: pin.oauth.defaultScopes,
    });
    const res = await fetch(authUrl, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get('location') ?? '');
    assert.equal(back.searchParams.get('state'), 'st-2');
    const code = back.searchParams.get('code') ?? '';

    await rejectsWith(h.provider({ clientSecret: 'wrong' }).oauth.exchangeCode({ code, redirectUri: REDIRECT }), 'auth_expired', '2');
    const tokens = await pin.oauth.exchangeCode({
      code,
      redirectUri: REDIRECT,
    });
    assert.match(tokens.accessToken, /^pina_/);
    assert.match(tokens.refreshToken ?? '', /^pinr_/);
    assert.deepEqual(tokens.scopes, ['boards:read', 'pins:read', 'pins:write', 'user_accounts:read']);
    const day = 86_400_000;
    assert.ok(tokens.expiresAt && Math.abs(tokens.expiresAt.getTime() - Date.now() - 30 * day) < 60_000);
    assert.ok(tokens.refreshTokenExpiresAt && tokens.refreshTokenExpiresAt.getTime() > Date.now() + 300 * day);
    await rejectsWith(pin.oauth.exchangeCode({ code, redirectUri: REDIRECT }), 'auth_expired');

    assert.deepEqual(await pin.lookupAccounts({ tokens }), [
      {
        externalAccountId: h.sim.state.defaultUser.id,
        displayName: 'Sandbox Pinner',
        handle: 'sandbox_pinner',
        avatarUrl: h.sim.state.defaultUser.profileImage,
      },
    ]);
  });

  test('refresh keeps the refresh token; a grant removed by the user is auth_expired; revoke is local', async () => {
    const issued = h.sim.state.issueTokens(undefined, undefined, 'pin-app');
    h.sim.state.expireAccessToken(issued.accessToken);
    await rejectsWith(pin.lookupAccounts({ tokens: tokensOf(issued.accessToken) }), 'auth_expired', '2');
    const fresh = await pin.oauth.refresh({
      refreshToken: issued.refreshToken,
      accessToken: issued.accessToken,
    });
    assert.notEqual(fresh.accessToken, issued.accessToken);
    assert.equal(fresh.refreshToken, issued.refreshToken);
    assert.equal((await pin.lookupAccounts({ tokens: fresh })).length, 1);

    assert.equal(pin.oauth.supportsRevoke, false);
    await pin.oauth.revoke({
      accessToken: fresh.accessToken,
      externalAccountId: h.sim.state.defaultUser.id,
    });
    h.sim.state.revokeUserApp(h.sim.state.defaultUser.id);
    await rejectsWith(
      pin.oauth.refresh({
        refreshToken: issued.refreshToken,
        accessToken: fresh.accessToken,
      }),
      'auth_expired',
    );
  });

  test('image Pin on a board: Pinterest fetches the image URL once; permalink and analytics', async () => {
    const hits = h.imageHits();
    const posts = h.sim.ledger.posts.length;
    const result = await pin.publish(ctx, h.request([h.image('/pin.png', 'A 1x1 pixel')]));
    assert.equal(result.status, 'published');
    const id = result.status === 'published' ? result.providerPostId : '';
    assert.equal(result.status === 'published' ? result.url : null, `https://www.pinterest.com/pin/${id}/`);
    assert.equal(h.imageHits(), hits + 1);
    assert.equal(h.sim.ledger.posts.length, posts + 1);
    const stored = h.sim.state.pins.get(id)?.resource;
    assert.deepEqual(
      [stored?.board_id, stored?.title, stored?.description, stored?.link, stored?.alt_text],
      [h.firstBoardId(), 'Pin title', 'Pin description', 'https://example.com/landing', 'A 1x1 pixel'],
    );

    assert.equal(await pin.fetchPermalink(ctx, id), `https://www.pinterest.com/pin/${id}/`);
    const metrics = h.sim.state.pins.get(id)?.metrics;
    if (metrics)
      Object.assign(metrics, {
        IMPRESSION: 120,
        SAVE: 4,
        PIN_CLICK: 9,
        OUTBOUND_CLICK: 3,
      });
    const stats = await pin.fetchPostAnalytics(ctx, { providerPostId: id });
    assert.deepEqual(stats.metrics, {
      impressions: 120,
      saves: 4,
      pinClicks: 9,
      outboundClicks: 3,
    });
  });

  test('video Pin: register, upload to upload_url, processing, then the Pin is created on poll', async () => {
    const posts = h.sim.ledger.posts.length;
    const video = videoItem();
    const first = await pin.publish(ctx, h.request([video], { title: 'Video pin' }));
    assert.equal(first.status, 'processing');
    assert.equal(h.sim.ledger.posts.length, posts, 'no Pin before the video is processed');
    assert.equal([...h.sim.state.media.values()].at(-1)?.bytes, video.bytes);

    const done = await pin.pollPublish(ctx, first.status === 'processing' ? first.pollToken : '');
    assert.equal(done.status, 'published');
    const stored = h.sim.state.pins.get(done.status === 'published' ? done.providerPostId : '')?.resource;
    assert.equal((stored?.media as { media_type?: string } | undefined)?.media_type, 'video');
    assert.equal(stored?.title, 'Video pin');
    assert.equal(h.sim.ledger.posts.length, posts + 1);

    h.sim.state.mediaProcessingReads = 0;
    const direct = await pin.publish(ctx, h.request([videoItem()], { coverImageUrl: `${h.imageBase}/pin.png` }));
    assert.equal(direct.status, 'published');
    await rejectsWith(pin.pollPublish(ctx, 'not-a-token'), 'platform_rejected');
  });

  test('boardList follows the bookmark across pages', async () => {
    const owner = h.sim.state.defaultUser.id;
    const extra = Array.from({ length: 260 }, (_, i) => ({
      id: `77${i}`,
      ownerId: owner,
      name: `Board ${i}`,
      description: '',
      privacy: 'PUBLIC' as const,
      pinCount: 0,
    }));
    h.sim.state.boards.push(...extra);
    try {
      const calls = h.sim.ledger.count('boards');
      const boards = await pin.runTool(ctx, 'boardList', {});
      assert.equal(boards.length, 263);
      assert.equal(h.sim.ledger.count('boards'), calls + 2);
      assert.deepEqual(boards[0], {
        id: h.firstBoardId(),
        name: 'Sandbox Ideas',
        description: 'Ideas board',
        privacy: 'PUBLIC',
        pinCount: boards[0]?.pinCount,
      });
      assert.ok(boards.some((b) => b.privacy === 'SECRET'));
    } finally {
      h.sim.state.boards.splice(h.sim.state.boards.length - extra.length);
    }
    await rejectsWith(pin.runTool(ctx, 'channelCategories', {}), 'platform_rejected');
  });

  test('comments are not part of API v5: platform_rejected', async () => {
    await rejectsWith(pin.postComment(ctx, { providerPostId: '1', text: 'hi' }), 'platform_rejected');
    await rejectsWith(pin.listComments(ctx, { providerPostId: '1', limit: 5 }), 'platform_rejected');
  });
});

test('the Pinterest simulator mounted under a prefix in a host app (sandbox mode) serves the whole flow', async () => {
  const state = new PinterestSimulatorState();
  state.mediaProcessingReads = 0;
  const sim = await mountSimulator(pinterestSimulatorPlugin, '/sandbox/pinterest', { state }, (host) =>
    host.post('/echo', async (request) => ({ body: request.body })),
  );
  try {
    const pin = createPinterestProvider({
      clientId: 'sandbox-app',
      clientSecret: 'sandbox-secret',
      redirectUri: REDIRECT,
      ...pinterestSimulatorBaseUrls(`${sim.origin}/sandbox/pinterest`),
      timeoutMs: 2000,
    });
    const tokens = await authorize(pin, REDIRECT);
    const [account] = await pin.lookupAccounts({ tokens });
    assert.equal(account?.externalAccountId, state.defaultUser.id);
    const [board] = await pin.runTool(ctxFor(tokens.accessToken), 'boardList', {});
    const result = await pin.publish(ctxFor(tokens.accessToken, state.defaultUser.id), {
      text: 'Sandbox',
      media: [videoItem()],
      settings: { boardId: board?.id },
      idempotencyKey: 'k',
    });
    assert.equal(result.status, 'published');
    assert.equal(sim.ledger.posts.length, 1);
    // upload_url points back through the prefix
    assert.ok(sim.ledger.requests.some((r) => r.operation === 'media_upload' && r.url === '/sandbox/pinterest/media-upload/'));
    const form = await fetch(`${sim.origin}/echo`, {
      method: 'POST',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415, "the host app's parsers are untouched");
  } finally {
    await sim.close();
  }
});
