import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oauth from 'oauth4webapi';
import { AUTH_ENV, DASHBOARD, sessionHeaders } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const ISSUER = 'https://api.example.test';
const REDIRECT = 'https://client.example/callback';

describe('OAuth provider driven by oauth4webapi', () => {
  let ctx: TestContext;
  let admin: Record<string, string>;
  let member: Record<string, string>;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let secret: string;
  let brandId: string;

  // every request of the client library goes to the app in process
  const customFetch = async (url: string, options: oauth.CustomFetchOptions<string, unknown>): Promise<Response> => {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(options.headers as ConstructorParameters<typeof Headers>[0]).forEach((v, k) => {
      headers[k] = v;
    });
    const res = await ctx.app.inject({
      method: options.method as 'GET' | 'POST',
      url: `${u.pathname}${u.search}`,
      headers,
      payload: options.body === undefined || options.body === null ? undefined : String(options.body),
    });
    return new Response(res.statusCode === 204 || res.statusCode === 302 ? null : res.body, {
      status: res.statusCode,
      headers: res.headers as Record<string, string>,
    });
  };
  const opts = { [oauth.customFetch]: customFetch };

  async function authorize(scope = 'brands:read'): Promise<{ params: URLSearchParams; verifier: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    // the authorization endpoint is the dashboard's consent page, which describes the request with GET /v1/oauth/authorize
    assert.equal(as.authorization_endpoint, `${ISSUER}/app/oauth/authorize`);
    const url = new URL('/v1/oauth/authorize', ISSUER);
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', REDIRECT);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    const consent = await ctx.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: admin });
    assert.equal(consent.statusCode, 200, consent.body);
    assert.equal(consent.json().client.clientId, client.client_id);
    assert.deepEqual(consent.json().scopes, [scope]);
    const approved = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/authorize',
      headers: admin,
      payload: Object.fromEntries(url.searchParams),
    });
    assert.equal(approved.statusCode, 200, approved.body);
    const redirectTo = new URL(approved.json().redirectTo);
    assert.equal(redirectTo.searchParams.get('iss'), ISSUER);
    // validates state and iss (RFC 9207)
    const params = oauth.validateAuthResponse(as, client, redirectTo, state);
    return { params, verifier };
  }

  before(async () => {
    ctx = await createTestContext({ env: { ...AUTH_ENV, SERVICE_PUBLIC_BASE_URL: ISSUER, SERVICE_DASHBOARD_ORIGINS: DASHBOARD } });
    const org = await ctx.createOrganization({ name: 'OAuth' });
    brandId = (await ctx.createBrand(org.organizationId, 'Acme')).brandId;
    admin = await sessionHeaders(ctx, org.organizationId, 'admin');
    member = await sessionHeaders(ctx, org.organizationId, 'member');
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/apps',
      headers: admin,
      payload: { name: 'Third party', redirectUris: [REDIRECT], scopes: ['brands:read', 'publish:read'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    client = { client_id: created.json().oauthApp.clientId };
    secret = created.json().clientSecret;
    const issuer = new URL(ISSUER);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' }));
  });
  after(() => ctx.close());

  it('discovery answers RFC 8414 metadata', () => {
    assert.equal(as.issuer, ISSUER);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.ok(as.revocation_endpoint);
  });

  it('code + PKCE exchange, the access token lists brands, refresh rotates, reuse revokes the family, grace window', async () => {
    const { params, verifier } = await authorize();
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), params, REDIRECT, verifier, opts);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, 'brands:read');

    const brands = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(brands.statusCode, 200, brands.body);
    assert.ok(brands.json().data.some((b: { brandId: string }) => b.brandId === brandId));
    // only the granted scopes
    const media = await ctx.app.inject({ method: 'GET', url: '/v1/media', headers: { authorization: `Bearer ${tokens.access_token}` } });
    assert.equal(media.statusCode, 401);

    // the code is single use: a replay is refused and revokes what it issued
    const replay = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), params, REDIRECT, verifier, opts);
    await assert.rejects(
      oauth.processAuthorizationCodeResponse(as, client, replay),
      (e: oauth.ResponseBodyError) => e.error === 'oauth_authorization_code_consumed',
    );
    const afterReplay = await ctx.app.inject({
      method: 'GET',
      url: '/v1/brands',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.equal(afterReplay.statusCode, 401);
  });

  it('refresh rotation, grace window, then reuse detection', async () => {
    const { params, verifier } = await authorize();
    const first = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretPost(secret), params, REDIRECT, verifier, opts),
    );
    const rotated = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(secret), first.refresh_token!, opts),
    );
    assert.notEqual(rotated.refresh_token, first.refresh_token);
    // a second tab within the grace window gets the same pair
    const twin = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(secret), first.refresh_token!, opts),
    );
    assert.equal(twin.refresh_token, rotated.refresh_token);
    assert.equal(twin.access_token, rotated.access_token);

    ctx.clock.advance(11_000);
    const reuse = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(secret), first.refresh_token!, opts);
    await assert.rejects(
      oauth.processRefreshTokenResponse(as, client, reuse),
      (e: oauth.ResponseBodyError) => e.error === 'oauth_refresh_token_consumed',
    );
    // the whole family is revoked
    const next = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(secret), rotated.refresh_token!, opts);
    await assert.rejects(
      oauth.processRefreshTokenResponse(as, client, next),
      (e: oauth.ResponseBodyError) => e.error === 'oauth_refresh_token_invalid',
    );
    const brands = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${rotated.access_token}` } });
    assert.equal(brands.statusCode, 401);
  });

  it('RFC 7009 revocation of a refresh token and grant revocation from the dashboard', async () => {
    const { params, verifier } = await authorize();
    const t = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), params, REDIRECT, verifier, opts),
    );
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.ClientSecretBasic(secret), t.refresh_token!, opts),
    );
    const brands = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${t.access_token}` } });
    assert.equal(brands.statusCode, 401);

    const again = await authorize();
    const t2 = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), again.params, REDIRECT, again.verifier, opts),
    );
    const grants = await ctx.app.inject({ method: 'GET', url: '/v1/oauth/grants', headers: admin });
    const live = grants.json().data.filter((g: { revokedAt: string | null }) => g.revokedAt === null);
    assert.equal(live.length, 1);
    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/v1/oauth/grants/${live[0].authorizationId}`, headers: admin });
    assert.equal(revoked.statusCode, 204);
    const after = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${t2.access_token}` } });
    assert.equal(after.statusCode, 401);
  });

  it('refuses bad authorize requests, bad clients and expired codes with the specification codes', async () => {
    const base = {
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    };
    const get = (q: Record<string, string>, headers = admin) =>
      ctx.app.inject({ method: 'GET', url: `/v1/oauth/authorize?${new URLSearchParams(q)}`, headers });
    assert.equal((await get({ ...base, redirect_uri: `${REDIRECT}/x` })).json().error, 'oauth_redirect_uri_not_registered');
    assert.equal((await get({ ...base, code_challenge_method: 'plain' })).json().error, 'invalid_public_oauth_authorize_request');
    assert.equal((await get({ ...base, client_id: 'client_unknown' })).statusCode, 404);
    assert.equal((await get({ ...base, scope: 'media:write' })).json().error, 'invalid_public_oauth_authorize_request');
    assert.equal((await get(base, member)).statusCode, 403);

    const bad = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: { grant_type: 'refresh_token', refresh_token: 'x', client_id: client.client_id, client_secret: 'wrong' },
    });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().error, 'invalid_client');

    const { params, verifier } = await authorize();
    ctx.clock.advance(61_000);
    const late = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), params, REDIRECT, verifier, opts);
    await assert.rejects(
      oauth.processAuthorizationCodeResponse(as, client, late),
      (e: oauth.ResponseBodyError) => e.error === 'oauth_authorization_code_invalid',
    );
  });

  it('limits the token endpoint per client (429)', async () => {
    let last = 0;
    for (let i = 0; i < 61; i++) {
      const r = await ctx.app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        payload: { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'client_flood', client_secret: 'x' },
      });
      last = r.statusCode;
    }
    assert.equal(last, 429);
  });
});

describe('public_oauth_disabled', () => {
  let ctx: TestContext;
  after(() => ctx.close());
  it('closes discovery, authorize and token', async () => {
    ctx = await createTestContext({ env: { ...AUTH_ENV, SERVICE_PUBLIC_OAUTH_ENABLED: 'false' } });
    const org = await ctx.createOrganization({ name: 'Closed' });
    const admin = await sessionHeaders(ctx, org.organizationId, 'admin');
    for (const r of [
      await ctx.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' }),
      await ctx.app.inject({ method: 'GET', url: '/v1/oauth/authorize?client_id=client_x', headers: admin }),
      await ctx.app.inject({ method: 'POST', url: '/v1/oauth/token', payload: { grant_type: 'refresh_token' } }),
    ]) {
      assert.equal(r.statusCode, 403, r.body);
      assert.equal(r.json().error, 'public_oauth_disabled');
    }
  });
});
