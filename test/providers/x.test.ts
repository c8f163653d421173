import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import multipart from '@fastify/multipart';
import { createXProvider } from '../../src/providers/x/x.provider.js';
import { X_CAPABILITY, X_ENDPOINTS } from '../../src/providers/x/x.rules.js';
import { XSimulatorState, xSimulatorBaseUrls, xSimulatorPlugin } from '../../src/sandbox/simulators/x.simulator.js';
import { authorize, ctxFor, mountSimulator } from '../support/simulators.js';
import { expectProviderError, MiB, media, pkce, published, REDIRECT, startXHarness, type XHarness } from './x-harness.js';

describe('X adapter against the simulator', () => {
  let h: XHarness;
  before(async () => {
    h = await startXHarness();
  });
  after(() => h.sim.close());
  beforeEach(() => h.sim.failures.clear());

  it('builds the OAuth 2.0 authorization URL with PKCE S256', () => {
    assert.deepEqual(X_ENDPOINTS, {
      apiBaseUrl: 'https://api.x.com/2',
      authBaseUrl: 'https://x.com',
      uploadBaseUrl: 'https://api.x.com/2',
    });
    const real = createXProvider({
      ...X_ENDPOINTS,
      clientId: 'cid',
      clientSecret: null,
      redirectUri: REDIRECT,
      timeoutMs: 1000,
    });
    const url = new URL(
      real.oauth.authorizationUrl({
        state: 's1',
        redirectUri: REDIRECT,
        scopes: real.oauth.defaultScopes,
        codeChallenge: 'ch',
      }),
    );
    assert.equal(`${url.origin}${url.pathname}`, 'https://x.com/i/oauth2/authorize');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('client_id'), 'cid');
    assert.equal(url.searchParams.get('redirect_uri'), REDIRECT);
    assert.equal(url.searchParams.get('scope'), 'tweet.read tweet.write users.read offline.access media.write tweet.moderate.write');
    assert.equal(url.searchParams.get('state'), 's1');
    assert.equal(url.searchParams.get('code_challenge'), 'ch');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(real.oauth.supportsPkce, true);
    assert.throws(() =>
      real.oauth.authorizationUrl({
        state: 's',
        redirectUri: REDIRECT,
        scopes: [],
      }),
    );
  });

  it('exchanges a code with the PKCE verifier, refreshes with rotation, revokes', async () => {
    const tokens = await h.connect('oauth_user');
    assert.ok(tokens.refreshToken);
    assert.deepEqual(tokens.scopes, X_CAPABILITY.requiredScopes);
    assert.ok(tokens.expiresAt && Math.abs(tokens.expiresAt.getTime() - Date.now() - 7_200_000) < 10_000);
    const [account] = await h.provider.lookupAccounts({ tokens });
    assert.equal(account?.handle, 'oauth_user');
    assert.ok(account?.externalAccountId);

    const refreshed = await h.provider.oauth.refresh({
      refreshToken: tokens.refreshToken,
      accessToken: tokens.accessToken,
    });
    assert.notEqual(refreshed.refreshToken, tokens.refreshToken);
    await expectProviderError(
      h.provider.oauth.refresh({
        refreshToken: tokens.refreshToken,
        accessToken: '',
      }),
      'auth_expired',
      'invalid_request',
    );

    await h.provider.oauth.revoke({
      accessToken: refreshed.accessToken,
      externalAccountId: account?.externalAccountId ?? '',
    });
    await expectProviderError(h.provider.lookupAccounts({ tokens: refreshed }), 'auth_expired');
  });

  it('posts a text post and builds its URL', async () => {
    const ctx = await h.channel('text_poster');
    const before = h.sim.ledger.posts.length;
    const r = published(
      await h.provider.publish(ctx, {
        text: 'hello from the sandbox',
        media: [],
        settings: {},
        idempotencyKey: 't1',
      }),
    );
    assert.equal(r.url, `https://x.com/text_poster/status/${r.providerPostId}`);
    assert.equal(h.sim.ledger.posts.length, before + 1);
    assert.equal(h.sim.state.tweets.get(r.providerPostId)?.text, 'hello from the sandbox');
    const noHandle = {
      ...ctx,
      externalAccountId: h.sim.state.user('text_poster').id,
      channelSettings: {},
    };
    const meCalls = h.sim.ledger.count('users_me');
    const r2 = published(
      await h.provider.publish(noHandle, {
        text: 'second',
        media: [],
        settings: {},
        idempotencyKey: 't2',
      }),
    );
    assert.equal(r2.url, `https://x.com/text_poster/status/${r2.providerPostId}`);
    const r3 = published(
      await h.provider.publish(noHandle, {
        text: 'third',
        media: [],
        settings: {},
        idempotencyKey: 't2b',
      }),
    );
    assert.equal(r3.url, `https://x.com/text_poster/status/${r3.providerPostId}`);
    // the handle is looked up once per account, then remembered
    assert.equal(h.sim.ledger.count('users_me') - meCalls, 1);
    assert.equal(await h.provider.fetchPermalink(ctx, r.providerPostId), r.url);
  });

  it('uploads each image in one request, with its alt text, then attaches them', async () => {
    const ctx = await h.channel('image_poster');
    const uploads = h.sim.ledger.count('media_upload');
    const r = published(
      await h.provider.publish(ctx, {
        text: 'two pictures',
        media: [media('image', Math.floor(4.5 * MiB), 'a red square'), media('image', 2000)],
        settings: {},
        idempotencyKey: 't3',
      }),
    );
    // one-shot POST /2/media/upload per image
    assert.equal(h.sim.ledger.count('media_upload') - uploads, 2);
    const tweet = h.sim.state.tweets.get(r.providerPostId);
    assert.equal(tweet?.mediaKeys.length, 2);
    const alt = [...h.sim.state.media.values()].find((m) => m.altText === 'a red square');
    assert.ok(alt?.mediaKey.startsWith('3_'));
  });

  it('waits for video processing through STATUS before posting', async () => {
    const ctx = await h.channel('video_poster');
    const before = h.sim.ledger.posts.length;
    const first = await h.provider.publish(ctx, {
      text: 'a video',
      media: [media('video', 600_000)],
      settings: {},
      idempotencyKey: 't4',
    });
    assert.equal(first.status, 'processing');
    assert.equal(h.sim.ledger.posts.length, before);
    const done = await h.pollUntilPublished(ctx, first);
    assert.ok(h.sim.ledger.count('media_status') >= 1);
    assert.equal(h.sim.state.tweets.get(done.providerPostId)?.mediaKeys[0]?.startsWith('7_'), true);
    assert.equal(h.sim.ledger.posts.length, before + 1);

    h.sim.state.failNextMediaProcessing('InvalidMedia', 'Unsupported video format');
    const failing = await h.provider.publish(ctx, {
      text: 'bad video',
      media: [media('video', 1000)],
      settings: {},
      idempotencyKey: 't5',
    });
    await new Promise((res) => setTimeout(res, 40));
    await expectProviderError(
      h.provider.pollPublish(ctx, failing.status === 'processing' ? failing.pollToken : ''),
      'user_content',
      'InvalidMedia',
    );
  });

  it('replies as comments and lists the conversation', async () => {
    const ctx = await h.channel('convo_owner');
    const post = published(
      await h.provider.publish(ctx, {
        text: 'start a thread',
        media: [],
        settings: {},
        idempotencyKey: 'c1',
      }),
    );
    const first = await h.provider.postComment(ctx, {
      providerPostId: post.providerPostId,
      text: 'first comment',
    });
    assert.equal(h.sim.ledger.comments.at(-1)?.commentId, first.providerCommentId);
    const fan = h.sim.state.seedReply(post.providerPostId, {
      username: 'a_fan',
      text: 'love it',
    });
    const answer = await h.provider.postComment(ctx, {
      providerPostId: post.providerPostId,
      text: 'thanks!',
      replyToCommentId: fan.id,
    });
    const comments = await h.provider.listComments(ctx, {
      providerPostId: post.providerPostId,
      limit: 50,
    });
    assert.deepEqual(comments.map((c) => c.providerCommentId).sort(), [first.providerCommentId, fan.id, answer.providerCommentId].sort());
    const fanComment = comments.find((c) => c.providerCommentId === fan.id);
    assert.equal(fanComment?.authorHandle, 'a_fan');
    assert.equal(fanComment?.parentProviderCommentId, null);
    assert.equal(fanComment?.permalinkUrl, `https://x.com/a_fan/status/${fan.id}`);
    assert.equal(comments.find((c) => c.providerCommentId === answer.providerCommentId)?.parentProviderCommentId, fan.id);
    const limited = await h.provider.listComments(ctx, {
      providerPostId: post.providerPostId,
      limit: 2,
    });
    assert.equal(limited.length, 2);
  });

  it('reads public metrics', async () => {
    const ctx = await h.channel('metrics_user');
    const post = published(
      await h.provider.publish(ctx, {
        text: 'count me',
        media: [],
        settings: {},
        idempotencyKey: 'a1',
      }),
    );
    Object.assign(h.sim.state.tweets.get(post.providerPostId)?.metrics ?? {}, {
      like_count: 5,
      impression_count: 300,
      retweet_count: 2,
    });
    const a = await h.provider.fetchPostAnalytics(ctx, {
      providerPostId: post.providerPostId,
    });
    assert.deepEqual(a.metrics, {
      impressions: 300,
      likes: 5,
      replies: 0,
      reposts: 2,
      quotes: 0,
      bookmarks: 0,
    });
    await expectProviderError(h.provider.fetchPostAnalytics(ctx, { providerPostId: '1' }), 'user_content');
  });

  it('runs mentionSearch (with the username lookup fallback) and communitySearch', async () => {
    const ctx = await h.channel('tool_user');
    h.sim.state.user('searchme_brand');
    const found = await h.provider.runTool(ctx, 'mentionSearch', {
      query: '@searchme',
    });
    assert.deepEqual(
      found.map((u) => u.username),
      ['searchme_brand'],
    );
    h.sim.state.usersSearchEnabled = false;
    try {
      const exact = await h.provider.runTool(ctx, 'mentionSearch', {
        query: 'searchme_brand',
      });
      assert.deepEqual(
        exact.map((u) => u.username),
        ['searchme_brand'],
      );
      assert.ok(h.sim.ledger.count('users_lookup') >= 1);
    } finally {
      h.sim.state.usersSearchEnabled = true;
    }
    const communities = await h.provider.runTool(ctx, 'communitySearch', {
      query: 'makers',
    });
    assert.deepEqual(
      communities.map((c) => c.name),
      ['Sandbox Makers'],
    );
    await expectProviderError(h.provider.runTool(ctx, 'boardList', {}), 'platform_rejected');
    await expectProviderError(h.provider.runTool(ctx, 'mentionSearch', {}), 'user_content');
  });

  it('works mounted under a prefix of an app that has its own multipart parser', async () => {
    const state = new XSimulatorState();
    const sim = await mountSimulator(xSimulatorPlugin, '/sandbox/x', { state }, (host) => host.register(multipart));
    try {
      const mounted = createXProvider({
        clientId: state.clientId,
        clientSecret: state.clientSecret,
        redirectUri: REDIRECT,
        ...xSimulatorBaseUrls(sim.origin, '/sandbox/x'),
        timeoutMs: 5000,
      });
      const challenge = pkce();
      const authUrl = mounted.oauth.authorizationUrl({
        state: 'm',
        redirectUri: REDIRECT,
        scopes: mounted.oauth.defaultScopes,
        codeChallenge: challenge.challenge,
      });
      assert.ok(authUrl.startsWith(`${sim.origin}/sandbox/x/i/oauth2/authorize?`));
      const tokens = await authorize(mounted, REDIRECT, { state: 'm', scopes: mounted.oauth.defaultScopes, pkce: challenge });
      const r = published(
        await mounted.publish(ctxFor(tokens.accessToken), {
          text: 'mounted',
          media: [media('image', 1500)],
          settings: {},
          idempotencyKey: 'mm',
        }),
      );
      assert.equal(r.url, `https://x.com/sandbox_brand/status/${r.providerPostId}`);
      assert.equal(sim.ledger.posts.length, 1);
    } finally {
      await sim.close();
    }
  });
});
