import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { PublishMediaItem } from '../../src/providers/provider.js';
import { createXProvider } from '../../src/providers/x/x.provider.js';
import { expectProviderError, media, pkce, REDIRECT, startXHarness, type XHarness } from './x-harness.js';

describe('X adapter error mapping against the simulator', () => {
  let h: XHarness;
  before(async () => {
    h = await startXHarness();
  });
  after(() => h.sim.close());
  beforeEach(() => h.sim.failures.clear());

  it('refuses a wrong code_verifier and a confidential client without Basic auth', async () => {
    const { code } = await h.authorizeCode('pkce_user');
    await expectProviderError(
      h.provider.oauth.exchangeCode({
        code,
        redirectUri: REDIRECT,
        codeVerifier: pkce().verifier,
      }),
      'auth_expired',
    );
    const again = await h.authorizeCode('pkce_user');
    const publicClient = h.makeProvider(5000, null);
    await expectProviderError(
      publicClient.oauth.exchangeCode({
        code: again.code,
        redirectUri: REDIRECT,
        codeVerifier: again.verifier,
      }),
      'platform_rejected',
      'unauthorized_client',
    );
  });

  it('refuses mixed or too many media before calling X', async () => {
    const ctx = await h.channel('mixer');
    const calls = h.sim.ledger.requests.length;
    const send = (m: PublishMediaItem[]) =>
      h.provider.publish(ctx, {
        text: 'x',
        media: m,
        settings: {},
        idempotencyKey: 'm',
      });
    await expectProviderError(send([media('image', 10), media('video', 10)]), 'user_content', 'media_mixed');
    await expectProviderError(send([1, 2, 3, 4, 5].map(() => media('image', 10))), 'user_content', 'too_many_media');
    await expectProviderError(send([media('gif', 10), media('gif', 10)]), 'user_content', 'too_many_media');
    assert.equal(h.sim.ledger.requests.length, calls);
  });

  it('maps errors: 401, 429 with x-rate-limit-reset, 5xx, duplicate, too long, missing scope', async () => {
    const ctx = await h.channel('error_user');
    const post = (text: string) =>
      h.provider.publish(ctx, {
        text,
        media: [],
        settings: {},
        idempotencyKey: 'e',
      });
    h.sim.failures.inject({ kind: 'expired_token', operation: 'publish' });
    await expectProviderError(post('one'), 'auth_expired');
    h.sim.failures.inject({
      kind: 'rate_limit',
      operation: 'publish',
      retryAfterSeconds: 120,
    });
    const limited = await expectProviderError(post('two'), 'rate_limited');
    assert.ok(limited.retryAfterSeconds !== null && limited.retryAfterSeconds >= 118 && limited.retryAfterSeconds <= 121);
    h.sim.failures.inject({ kind: 'server_error', operation: 'publish' });
    await expectProviderError(post('three'), 'transient');
    await post('same text');
    await expectProviderError(post('same text'), 'user_content', 'duplicate_content');
    await expectProviderError(post('x'.repeat(281)), 'user_content', 'invalid-request');
    await expectProviderError(
      h.provider.publish(ctx, {
        text: 'reply',
        media: [],
        settings: { in_reply_to_tweet_id: '42' },
        idempotencyKey: 'r',
      }),
      'user_content',
    );
    const readOnly = await h.connect('read_only', ['tweet.read', 'users.read']);
    await expectProviderError(
      h.provider.publish({ ...ctx, accessToken: readOnly.accessToken }, { text: 'nope', media: [], settings: {}, idempotencyKey: 'n' }),
      'platform_rejected',
      'oauth2-permissions',
    );
  });

  it('answers 429 with the real window once the post limit is spent', async () => {
    const ctx = await h.channel('busy_poster');
    const limit = h.sim.state.postsPer15Minutes;
    h.sim.state.postsPer15Minutes = 2;
    try {
      await h.provider.publish(ctx, {
        text: 'p1',
        media: [],
        settings: {},
        idempotencyKey: 'w1',
      });
      await h.provider.publish(ctx, {
        text: 'p2',
        media: [],
        settings: {},
        idempotencyKey: 'w2',
      });
      const err = await expectProviderError(
        h.provider.publish(ctx, {
          text: 'p3',
          media: [],
          settings: {},
          idempotencyKey: 'w3',
        }),
        'rate_limited',
      );
      assert.ok((err.retryAfterSeconds ?? 0) > 800);
    } finally {
      h.sim.state.postsPer15Minutes = limit;
    }
  });

  it('reports unknown_outcome when a post answer is lost, and the ledger shows one post', async () => {
    const ctx = await h.channel('lost_user');
    const before = h.sim.ledger.posts.filter((p) => p.text === 'lost answer').length;
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await expectProviderError(
      h.provider.publish(ctx, {
        text: 'lost answer',
        media: [],
        settings: {},
        idempotencyKey: 'l1',
      }),
      'unknown_outcome',
    );
    assert.equal(h.sim.ledger.posts.filter((p) => p.text === 'lost answer').length, before + 1);

    const quick = h.makeProvider(200);
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'publish',
      delayMs: 2000,
    });
    await expectProviderError(
      quick.publish(ctx, {
        text: 'slow',
        media: [],
        settings: {},
        idempotencyKey: 'l2',
      }),
      'unknown_outcome',
    );
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'tweet_lookup',
      delayMs: 2000,
    });
    await expectProviderError(quick.fetchPostAnalytics(ctx, { providerPostId: '1' }), 'transient');
  });

  it('reports transient when X cannot be reached', async () => {
    const down = createXProvider({
      clientId: 'c',
      clientSecret: null,
      redirectUri: REDIRECT,
      apiBaseUrl: 'http://127.0.0.1:9',
      authBaseUrl: 'http://127.0.0.1:9',
      uploadBaseUrl: 'http://127.0.0.1:9',
      timeoutMs: 1000,
    });
    await expectProviderError(
      down.publish(
        { accessToken: 'a', externalAccountId: 'b', channelSettings: {} },
        { text: 'hi', media: [], settings: {}, idempotencyKey: 'd' },
      ),
      'transient',
    );
  });

  it("answers in X's own shapes: rate-limit headers, problem details, OAuth errors", async () => {
    const tokens = await h.connect('shape_user');
    const me = () =>
      fetch(`${h.sim.url}/2/users/me`, {
        headers: { authorization: `Bearer ${tokens.accessToken}` },
      }).then((r) => {
        assert.equal(r.status, 200);
        return Number(r.headers.get('x-rate-limit-remaining'));
      });
    const first = await me();
    const second = await me();
    assert.equal(first - second, 1);
    const unauthorized = await fetch(`${h.sim.url}/2/users/me`, {
      headers: { authorization: 'Bearer nope' },
    });
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(await unauthorized.json(), {
      title: 'Unauthorized',
      detail: 'Unauthorized',
      type: 'about:blank',
      status: 401,
    });
    const tooLong = await fetch(`${h.sim.url}/2/tweets`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ text: 'y'.repeat(300) }),
    });
    const problem = (await tooLong.json()) as {
      type: string;
      errors: unknown[];
    };
    assert.equal(tooLong.status, 400);
    assert.equal(problem.type, 'https://api.x.com/2/problems/invalid-request');
    assert.equal(problem.errors.length, 1);
    const badToken = await fetch(`${h.sim.url}/2/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${h.sim.state.clientId}:${h.sim.state.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'nope',
        client_id: h.sim.state.clientId,
      }),
    });
    assert.equal(badToken.status, 400);
    assert.equal(((await badToken.json()) as { error: string }).error, 'invalid_request');
  });
});
