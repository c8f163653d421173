import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTiktokProvider } from '../../src/providers/tiktok/tiktok.provider.js';
import { expectProviderError, imageItem, REDIRECT, request, startTiktokHarness, type TiktokHarness, videoItem } from './tiktok-harness.js';

describe('TikTok adapter error mapping against the simulator', () => {
  let h: TiktokHarness;
  before(async () => {
    h = await startTiktokHarness();
  });
  after(() => h.sim.close());
  beforeEach(() => h.sim.failures.clear());

  it('rejects a code exchange with a wrong client secret as platform_rejected', async () => {
    const bad = createTiktokProvider({
      ...h.sim.baseUrls,
      clientId: h.sim.state.clientKey,
      clientSecret: 'nope',
      redirectUri: REDIRECT,
      timeoutMs: 2000,
    });
    await expectProviderError(bad.oauth.exchangeCode({ code: 'x', redirectUri: REDIRECT }), 'platform_rejected', 'invalid_client');
  });

  it('checks privacy_level and duration against creator_info before init', async () => {
    const ctx = await h.channel('checks');
    const inits = h.sim.ledger.count('publish');
    await expectProviderError(
      h.provider.publish(ctx, request([videoItem(1000)], { privacy_level: 'FOLLOWER_OF_CREATOR' })),
      'user_content',
      'privacy_level_option_mismatch',
    );
    await expectProviderError(h.provider.publish(ctx, request([videoItem(1000, 601)])), 'user_content', 'duration_check_failed');
    await expectProviderError(
      h.provider.publish(
        ctx,
        request([videoItem(1000)], {
          privacy_level: 'SELF_ONLY',
          brand_content_toggle: true,
        }),
      ),
      'user_content',
    );
    await expectProviderError(h.provider.publish(ctx, request([videoItem(1000), imageItem(1)])), 'user_content');
    assert.equal(h.sim.ledger.count('publish'), inits);
  });

  it('maps a FAILED status fail_reason to its category', async () => {
    const ctx = await h.channel('fails');
    for (const [reason, category] of [
      ['file_format_check_failed', 'user_content'],
      ['spam_risk_user_banned_from_posting', 'platform_rejected'],
      ['auth_removed', 'auth_expired'],
      ['internal', 'transient'],
    ] as const) {
      h.sim.state.failNextPublish(reason);
      const r = await h.provider.publish(ctx, request([videoItem(2000)]));
      await new Promise((res) => setTimeout(res, 30));
      await expectProviderError(h.provider.pollPublish(ctx, r.status === 'processing' ? r.pollToken : ''), category, reason);
    }
  });

  it('maps API errors: expired token, rate limit, 5xx, scope, unaudited client, daily cap', async () => {
    const ctx = await h.channel('errors');
    const req = request([videoItem(1000)]);
    h.sim.failures.inject({ kind: 'expired_token', operation: 'creator_info' });
    await expectProviderError(h.provider.publish(ctx, req), 'auth_expired', 'access_token_invalid');
    h.sim.failures.inject({ kind: 'rate_limit', operation: 'publish' });
    const limited = await expectProviderError(h.provider.publish(ctx, req), 'rate_limited', 'rate_limit_exceeded');
    assert.equal(limited.retryAfterSeconds, 60);
    assert.equal(limited.httpStatus, 429);
    h.sim.failures.inject({ kind: 'server_error', operation: 'status' });
    await expectProviderError(h.provider.pollPublish(ctx, 'whatever'), 'transient', 'internal_error');

    const narrow = await h.connect(['user.info.basic']);
    const narrowCtx = {
      accessToken: narrow.accessToken,
      externalAccountId: '',
      channelSettings: {},
    };
    await expectProviderError(h.provider.publish(narrowCtx, req), 'auth_expired', 'scope_not_authorized');

    h.sim.state.unaudited = true;
    try {
      await expectProviderError(h.provider.publish(ctx, req), 'platform_rejected', 'unaudited_client_can_only_post_to_private_accounts');
    } finally {
      h.sim.state.unaudited = false;
    }
    const cap = h.sim.state.dailyPostCap;
    h.sim.state.dailyPostCap = 0;
    try {
      const capped = await expectProviderError(h.provider.publish(ctx, req), 'rate_limited', 'spam_risk_too_many_posts');
      assert.ok((capped.retryAfterSeconds ?? 0) > 0);
    } finally {
      h.sim.state.dailyPostCap = cap;
    }
  });

  it('answers rate_limit_exceeded past 6 init calls a minute for one token', async () => {
    const ctx = await h.channel('busy');
    const photos = request([imageItem(1)]);
    for (let i = 0; i < 6; i += 1) await h.provider.publish(ctx, photos);
    await expectProviderError(h.provider.publish(ctx, photos), 'rate_limited', 'rate_limit_exceeded');
  });

  it('reports unknown_outcome when the final chunk answer is lost, with exactly one post', async () => {
    const ctx = await h.channel('lost.upload');
    const before = h.sim.ledger.posts.length;
    h.sim.failures.inject({ kind: 'lost_response', operation: 'upload' });
    await expectProviderError(h.provider.publish(ctx, request([videoItem(4000)])), 'unknown_outcome');
    assert.equal(h.sim.ledger.posts.length, before + 1);
  });

  it('reports unknown_outcome when an init answer is lost, transient when a status fetch times out', async () => {
    const ctx = await h.channel('lost.init');
    h.sim.failures.inject({ kind: 'lost_response', operation: 'publish' });
    await expectProviderError(h.provider.publish(ctx, request([imageItem(1)])), 'unknown_outcome');
    const quick = h.makeProvider(200);
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'status',
      delayMs: 2000,
    });
    await expectProviderError(quick.pollPublish(ctx, 'any'), 'transient');
    h.sim.failures.inject({
      kind: 'timeout',
      operation: 'publish',
      delayMs: 2000,
    });
    await expectProviderError(quick.publish(ctx, request([imageItem(1)])), 'unknown_outcome');
  });

  it('reports transient when the platform cannot be reached', async () => {
    const down = createTiktokProvider({
      clientId: 'k',
      clientSecret: 's',
      redirectUri: REDIRECT,
      apiBaseUrl: 'http://127.0.0.1:9',
      authBaseUrl: 'http://127.0.0.1:9',
      uploadBaseUrl: 'http://127.0.0.1:9',
      timeoutMs: 1000,
    });
    await expectProviderError(
      down.publish({ accessToken: 'a', externalAccountId: 'b', channelSettings: {} }, request([imageItem(1)])),
      'transient',
    );
  });

  it("answers in TikTok's own envelope with log ids", async () => {
    const tokens = await h.connect();
    const ok = await fetch(`${h.sim.url}/v2/post/publish/creator_info/query/`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        'content-type': 'application/json; charset=UTF-8',
      },
      body: '{}',
    });
    const okBody = (await ok.json()) as {
      data: { privacy_level_options: string[] };
      error: { code: string; message: string; log_id: string };
    };
    assert.equal(ok.status, 200);
    assert.equal(okBody.error.code, 'ok');
    assert.ok(okBody.error.log_id.length > 10);
    assert.ok(okBody.data.privacy_level_options.includes('SELF_ONLY'));
    const bad = await fetch(`${h.sim.url}/v2/post/publish/creator_info/query/`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer act.nope',
        'content-type': 'application/json; charset=UTF-8',
      },
      body: '{}',
    });
    const badBody = (await bad.json()) as {
      data: unknown;
      error: { code: string; log_id: string };
    };
    assert.equal(bad.status, 401);
    assert.deepEqual(badBody.data, {});
    assert.equal(badBody.error.code, 'access_token_invalid');
    assert.ok(badBody.error.log_id);
  });
});
