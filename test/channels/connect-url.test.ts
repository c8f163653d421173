/**
 * Live-mode connect flow: configuration errors of connect-url, the real authorization URL with PKCE,
 * state expiry, and a code exchange against a standalone X simulator the adapter is pointed at by
 * configuration (SERVICE_X_*_BASE_URL), including a refused exchange.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningXSimulator, startXSimulator } from '../../src/sandbox/simulators/x.simulator.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { xSimulatorEnv } from '../support/simulators.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

describe('channel connect URL (live mode)', () => {
  let ctx: TestContext;
  let sim: RunningXSimulator;
  let a: Org;
  let b: Org;
  let brandA: string;
  let brandB: string;
  const redirect = 'https://api.example.test/v1/channel-accounts/oauth/callback/x';

  before(async () => {
    sim = await startXSimulator({
      clientId: 'live-x-client',
      clientSecret: 'live-x-secret',
    });
    ctx = await createTestContext({
      env: {
        ...xSimulatorEnv(sim, 'live-x-client', 'live-x-secret'),
        SERVICE_X_REDIRECT_URI: redirect,
        SERVICE_PINTEREST_CLIENT_ID: 'p',
        SERVICE_PINTEREST_CLIENT_SECRET: 'q',
        SERVICE_PINTEREST_REDIRECT_URI: 'not a url',
        SERVICE_YOUTUBE_CLIENT_ID: 'y',
        SERVICE_YOUTUBE_CLIENT_SECRET: 'z',
        SERVICE_YOUTUBE_AUTH_BASE_URL: 'ftp://example.test',
        SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS: 'https://app.example.test',
      },
    });
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    brandA = (await ctx.createBrand(a.organizationId, 'Alpha')).brandId;
    brandB = (await ctx.createBrand(b.organizationId, 'Beta')).brandId;
  });
  after(async () => {
    await ctx.close();
    await sim.close();
  });

  const connectUrl = (body: Record<string, unknown>, org: Org = a) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/channel-accounts/connect-url',
      headers: org.auth,
      payload: body,
    });

  it('answers the platform authorization URL with scopes, a stored single-use state and PKCE S256', async () => {
    const res = await connectUrl({
      platform: 'x',
      brandId: brandA,
      returnUrl: 'https://app.example.test/back',
      redirectUri: redirect,
      scopes: ['tweet.read', 'users.read'],
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['authorizationUrl', 'platform', 'redirectUri', 'scopes', 'state']);
    assert.deepEqual(body.scopes, ['tweet.read', 'users.read']);
    assert.equal(body.redirectUri, redirect);
    const url = new URL(body.authorizationUrl);
    assert.equal(`${url.origin}${url.pathname}`, `${sim.baseUrls.authBaseUrl}/i/oauth2/authorize`);
    assert.equal(url.searchParams.get('client_id'), 'live-x-client');
    assert.equal(url.searchParams.get('state'), body.state);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(url.searchParams.get('redirect_uri'), redirect);
    const row = await ctx.database.db
      .selectFrom('channel_connect_states')
      .selectAll()
      .where('organization_id', '=', a.organizationId)
      .executeTakeFirstOrThrow();
    assert.equal(row.brand_id, brandA);
    assert.equal(row.return_url, 'https://app.example.test/back');
    assert.ok(row.code_verifier && !row.code_verifier.includes(url.searchParams.get('code_challenge')!));
    assert.ok(!body.state.includes(row.secret_hash));
  });

  it("answers the spec's channel_oauth_* errors and request validation errors", async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ platform: 'tiktok' }, 400, 'channel_oauth_config_missing'],
      [{ platform: 'pinterest' }, 400, 'channel_oauth_config_invalid'],
      [{ platform: 'youtube' }, 400, 'channel_oauth_config_invalid'],
      [{ platform: 'x', redirectUri: 'https://evil.example.test/cb' }, 400, 'channel_oauth_redirect_uri_forbidden'],
      [{ platform: 'myspace' }, 400, 'invalid_public_channel_connect_url_request'],
      [{ platform: 'x', returnUrl: 'javascript:alert(1)' }, 400, 'invalid_public_channel_connect_url_request'],
      [{ platform: 'x', returnUrl: 'https://elsewhere.example.test/' }, 400, 'invalid_public_channel_connect_url_request'],
      [{ platform: 'x', extra: true }, 400, 'invalid_public_channel_connect_url_request'],
      [{ platform: 'x', brandId: brandB }, 404, 'brand_not_found'],
      [{ platform: 'x', organizationId: b.organizationId }, 404, 'organization_not_found'],
    ];
    for (const [body, status, code] of cases) {
      const res = await connectUrl(body);
      assert.equal(res.statusCode, status, JSON.stringify(body));
      assert.equal(res.json().error, code, JSON.stringify(body));
      assert.ok(!res.body.includes('live-x-secret') && !res.body.includes('"q"'));
    }
    const readOnly = await ctx.createOrganization({
      scopes: ['channels:read'],
    });
    assert.equal((await connectUrl({ platform: 'x' }, readOnly)).statusCode, 401);
  });

  it('exchanges the code at the configured platform, connects the channel into the right organization and brand', async () => {
    const { authorizationUrl, state } = (
      await connectUrl({
        platform: 'x',
        brandId: brandA,
        returnUrl: 'https://app.example.test/back',
      })
    ).json();
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302);
    const cb = new URL(consent.headers.get('location')!);
    assert.equal(cb.searchParams.get('state'), state);
    const done = await ctx.app.inject({
      method: 'GET',
      url: `/v1/channel-accounts/oauth/callback/x${cb.search}`,
    });
    assert.equal(done.statusCode, 302, done.body);
    const to = new URL(done.headers.location as string);
    assert.equal(to.searchParams.get('channelConnect'), 'connected');
    const id = to.searchParams.get('channelAccountId');
    const listed = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/channel-accounts?platform=x',
        headers: a.auth,
      })
    ).json();
    const ch = listed.data.find((c: { channelAccountId: string }) => c.channelAccountId === id);
    assert.equal(ch.brandId, brandA);
    assert.equal(ch.platformAppId, 'live-x-client');
    assert.ok(ch.tokenExpiresAt);
    const otherOrg = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/channel-accounts',
        headers: b.auth,
      })
    ).json();
    assert.equal(otherOrg.data.length, 0);
  });

  it('reports a refused code exchange on the return URL and an expired state as 400', async () => {
    const first = (
      await connectUrl({
        platform: 'x',
        returnUrl: 'https://app.example.test/back',
      })
    ).json();
    const consent = await fetch(first.authorizationUrl, { redirect: 'manual' });
    const cb = new URL(consent.headers.get('location')!);
    sim.failures.inject({ kind: 'server_error', operation: 'token' });
    const refused = await ctx.app.inject({
      method: 'GET',
      url: `/v1/channel-accounts/oauth/callback/x${cb.search}`,
    });
    assert.equal(refused.statusCode, 302);
    const to = new URL(refused.headers.location as string);
    assert.equal(to.searchParams.get('channelConnect'), 'error');
    assert.equal(to.searchParams.get('error'), 'channel_oauth_exchange_failed');

    const second = (await connectUrl({ platform: 'x' })).json();
    ctx.clock.advance(11 * 60_000);
    const expired = await ctx.app.inject({
      method: 'GET',
      url: `/v1/channel-accounts/oauth/callback/x?code=whatever&state=${encodeURIComponent(second.state)}`,
    });
    assert.equal(expired.statusCode, 400);
    assert.equal(expired.json().error, 'channel_oauth_state_invalid');
  });
});
