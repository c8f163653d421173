import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { ProviderCallContext, SocialProvider } from '../../src/providers/provider.js';
import { createYoutubeProvider } from '../../src/providers/youtube/youtube.provider.js';
import { YOUTUBE_ENDPOINTS } from '../../src/providers/youtube/youtube.rules.js';
import { GoogleSimulatorState, googleSimulatorBaseUrls, googleSimulatorPlugin } from '../../src/sandbox/simulators/google.simulator.js';
import { authorize, ctxFor, mountSimulator } from '../support/simulators.js';
import { publishRequest, REDIRECT, rejectsWith, startYoutubeHarness, tokensOf, type YoutubeHarness } from './youtube-harness.js';

describe('youtube adapter: OAuth, publishing, comments, tools', () => {
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

  test('authorization URL carries offline access, consent, PKCE S256 and the three scopes', () => {
    const url = new URL(
      yt.oauth.authorizationUrl({
        state: 'st-1',
        redirectUri: REDIRECT,
        scopes: yt.oauth.defaultScopes,
        codeChallenge: 'abc',
      }),
    );
    assert.equal(url.origin + url.pathname, `${h.sim.url}/oauth/o/oauth2/v2/auth`);
    const p = Object.fromEntries(url.searchParams);
    assert.deepEqual(
      { ...p, scope: p.scope?.split(' ').sort() },
      {
        client_id: 'yt-client',
        redirect_uri: REDIRECT,
        response_type: 'code',
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state: 'st-1',
        code_challenge: 'abc',
        code_challenge_method: 'S256',
        scope: [
          'https://www.googleapis.com/auth/youtube.force-ssl',
          'https://www.googleapis.com/auth/youtube.readonly',
          'https://www.googleapis.com/auth/youtube.upload',
        ],
      },
    );
    const prod = createYoutubeProvider({
      clientId: 'c',
      clientSecret: 's',
      redirectUri: REDIRECT,
      ...YOUTUBE_ENDPOINTS,
      timeoutMs: 1000,
    });
    assert.ok(
      prod.oauth
        .authorizationUrl({ state: 's', redirectUri: REDIRECT, scopes: [] })
        .startsWith('https://accounts.google.com/o/oauth2/v2/auth?'),
    );
  });

  test('consent redirects with code and state; code exchange with PKCE gives tokens for the channel', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authUrl = yt.oauth.authorizationUrl({
      state: 'st-2',
      redirectUri: REDIRECT,
      scopes: yt.oauth.defaultScopes,
      codeChallenge: challenge,
    });
    const res = await fetch(authUrl, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const back = new URL(res.headers.get('location') ?? '');
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'st-2');
    const code = back.searchParams.get('code') ?? '';

    await rejectsWith(
      yt.oauth.exchangeCode({
        code,
        redirectUri: REDIRECT,
        // a well-formed verifier (43-128 characters, RFC 7636) that is not the one the challenge was made from
        codeVerifier: randomBytes(32).toString('base64url'),
      }),
      'auth_expired',
      'invalid_grant',
    );
    const tokens = await yt.oauth.exchangeCode({
      code,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    assert.match(tokens.accessToken, /^ya29\./);
    assert.ok(tokens.refreshToken);
    assert.ok(tokens.expiresAt && tokens.expiresAt.getTime() > Date.now() + 3000_000);
    assert.equal(tokens.scopes.length, 3);
    // a code works once
    await rejectsWith(
      yt.oauth.exchangeCode({
        code,
        redirectUri: REDIRECT,
        codeVerifier: verifier,
      }),
      'auth_expired',
    );

    const accounts = await yt.lookupAccounts({ tokens });
    assert.deepEqual(
      accounts.map((a) => [a.externalAccountId, a.displayName, a.handle]),
      [[h.sim.state.defaultChannel.id, 'Sandbox Channel', '@sandboxchannel']],
    );
  });

  test('refresh keeps the refresh token and yields a working access token; revoke ends the grant', async () => {
    const issued = h.sim.state.issueTokens(undefined, undefined, 'yt-client');
    h.sim.state.expireAccessToken(issued.accessToken);
    await rejectsWith(yt.lookupAccounts({ tokens: tokensOf(issued.accessToken) }), 'auth_expired', 'authError');

    const fresh = await yt.oauth.refresh({
      refreshToken: issued.refreshToken,
      accessToken: issued.accessToken,
    });
    assert.notEqual(fresh.accessToken, issued.accessToken);
    assert.equal(fresh.refreshToken, issued.refreshToken);
    assert.equal((await yt.lookupAccounts({ tokens: fresh })).length, 1);

    const channelId = h.sim.state.defaultChannel.id;
    await yt.oauth.revoke({
      accessToken: fresh.accessToken,
      externalAccountId: channelId,
    });
    await rejectsWith(yt.lookupAccounts({ tokens: fresh }), 'auth_expired');
    await rejectsWith(
      yt.oauth.refresh({
        refreshToken: issued.refreshToken,
        accessToken: fresh.accessToken,
      }),
      'auth_expired',
      'invalid_grant',
    );
    // revoking twice is not an error
    await yt.oauth.revoke({
      accessToken: fresh.accessToken,
      externalAccountId: channelId,
    });
  });

  test('resumable upload sends title, description and privacy; processing then published', async () => {
    const before = h.sim.ledger.posts.length;
    const result = await yt.publish(ctx, publishRequest({ categoryId: '27', madeForKids: false, tags: 'a, b' }));
    assert.equal(result.status, 'processing');
    assert.equal(h.sim.ledger.posts.length, before + 1);
    assert.equal(h.sim.ledger.count('upload_init'), h.sim.ledger.count('publish'));
    const id = result.status === 'processing' ? result.pollToken : '';
    const stored = h.sim.state.videos.get(id);
    assert.ok(stored);
    assert.equal(stored.bytes, 4096);
    assert.deepEqual(
      [
        stored.resource.snippet.title,
        stored.resource.snippet.description,
        stored.resource.snippet.categoryId,
        stored.resource.snippet.tags,
      ],
      ['Launch video', 'A description', '27', ['a', 'b']],
    );
    assert.equal(stored.resource.status.privacyStatus, 'unlisted');
    assert.equal(stored.resource.status.selfDeclaredMadeForKids, false);

    const polled = await yt.pollPublish(ctx, id);
    assert.deepEqual(polled, {
      status: 'published',
      providerPostId: id,
      url: `https://www.youtube.com/watch?v=${id}`,
    });
    assert.equal(await yt.fetchPermalink(ctx, id), `https://www.youtube.com/watch?v=${id}`);
  });

  test('a video processed at once is published directly', async () => {
    h.sim.state.processingReads = 0;
    const result = await yt.publish(ctx, publishRequest({ privacyStatus: 'public' }));
    assert.equal(result.status, 'published');
    assert.match(result.status === 'published' ? (result.url ?? '') : '', /^https:\/\/www\.youtube\.com\/watch\?v=/);
  });

  test('first comment, reply, comment listing and analytics', async () => {
    h.sim.state.processingReads = 0;
    const published = await yt.publish(ctx, publishRequest());
    const videoId = published.status === 'published' ? published.providerPostId : '';
    const first = await yt.postComment(ctx, {
      providerPostId: videoId,
      text: 'Thanks for watching!',
    });
    const audience = h.sim.state.addAudienceComment(videoId, 'Great video', 'Fan');
    const reply = await yt.postComment(ctx, {
      providerPostId: videoId,
      text: 'Thank you!',
      replyToCommentId: audience,
    });
    assert.ok(reply.providerCommentId.startsWith(`${audience}.`));

    const comments = await yt.listComments(ctx, {
      providerPostId: videoId,
      limit: 10,
    });
    const byId = new Map(comments.map((c) => [c.providerCommentId, c]));
    assert.equal(comments.length, 3);
    assert.equal(byId.get(first.providerCommentId)?.body, 'Thanks for watching!');
    assert.equal(byId.get(audience)?.authorName, 'Fan');
    assert.equal(byId.get(reply.providerCommentId)?.parentProviderCommentId, audience);
    assert.equal(h.sim.ledger.comments.filter((c) => c.postId === videoId).length, 2);

    const stats = await yt.fetchPostAnalytics(ctx, { providerPostId: videoId });
    assert.deepEqual(stats.metrics, {
      views: 0,
      likes: 0,
      favorites: 0,
      comments: 1,
    });
  });

  test('tools: assignable categories from videoCategories.list and the privacy options', async () => {
    const categories = await yt.runTool(ctx, 'channelCategories', {
      regionCode: 'us',
    });
    assert.ok(categories.some((c) => c.id === '22' && c.title === 'People & Blogs'));
    assert.ok(!categories.some((c) => c.id === '18'), 'non-assignable categories are left out');
    const privacy = await yt.runTool(ctx, 'privacyOptions', {});
    assert.deepEqual(
      privacy.map((p) => p.value),
      ['public', 'unlisted', 'private'],
    );
    await rejectsWith(yt.runTool(ctx, 'boardList', {}), 'platform_rejected');
  });
});

test('the Google simulator mounted under a prefix in a host app (sandbox mode) serves the whole flow', async () => {
  const state = new GoogleSimulatorState();
  state.processingReads = 0;
  const sim = await mountSimulator(googleSimulatorPlugin, '/sandbox/google', { state }, (host) => {
    host.get('/health', async () => ({ ok: true }));
    host.post('/echo', async (request) => ({ body: request.body }));
  });
  try {
    const yt = createYoutubeProvider({
      clientId: 'sandbox-client',
      clientSecret: 'sandbox-secret',
      redirectUri: REDIRECT,
      ...googleSimulatorBaseUrls(`${sim.origin}/sandbox/google`),
      timeoutMs: 2000,
    });
    const tokens = await authorize(yt, REDIRECT);
    const [account] = await yt.lookupAccounts({ tokens });
    assert.equal(account?.externalAccountId, state.defaultChannel.id);
    const result = await yt.publish(ctxFor(tokens.accessToken, state.defaultChannel.id), publishRequest());
    assert.equal(result.status, 'published');
    assert.equal(sim.ledger.posts.length, 1);
    // the upload session URI points back through the prefix
    assert.ok(sim.ledger.requests.some((r) => r.operation === 'publish' && r.url.startsWith('/sandbox/google/upload/youtube/v3/videos?')));
    // the host app's own routes and parsers are untouched
    assert.equal((await fetch(`${sim.origin}/health`)).status, 200);
    const form = await fetch(`${sim.origin}/echo`, {
      method: 'POST',
      body: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
  } finally {
    await sim.close();
  }
});
