/**
 * RFC 7591 dynamic registration and RFC 8707 resources at the OAuth endpoints: what a self-registered
 * public client may and may not do, the limit per address, and which audience each kind of client gets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { s256 } from '../../src/modules/identity/oauth.service.js';
import { AUTH_ENV, sessionHeaders } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const ISSUER = 'https://api.example.test';
const REDIRECT = 'http://127.0.0.1:40111/callback';
const VERIFIER = 'v'.repeat(50);

describe('dynamic client registration and resource-bound tokens', () => {
  let ctx: TestContext;
  let admin: Record<string, string>;
  let member: Record<string, string>;

  let nextAddress = 1;
  // a fresh address per call unless given: the limit counts every registration attempt of an address
  const register = (body: unknown, ip = `10.1.0.${nextAddress++}`) =>
    ctx.app.inject({ method: 'POST', url: '/v1/oauth/register', payload: body as object, remoteAddress: ip });
  const params = (clientId: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: s256(VERIFIER),
      code_challenge_method: 'S256',
      state: 'xyz',
      ...extra,
    });
  async function code(clientId: string, extra: Record<string, string> = {}) {
    const approved = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/authorize',
      headers: admin,
      payload: Object.fromEntries(params(clientId, extra)),
    });
    assert.equal(approved.statusCode, 200, approved.body);
    return new URL(approved.json().redirectTo).searchParams.get('code')!;
  }
  const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });

  before(async () => {
    ctx = await createTestContext({ env: { ...AUTH_ENV, SERVICE_PUBLIC_BASE_URL: ISSUER, SERVICE_OAUTH_REGISTRATIONS_PER_HOUR: '5' } });
    const org = await ctx.createOrganization({ name: 'Registrations' });
    admin = await sessionHeaders(ctx, org.organizationId, 'admin');
    member = await sessionHeaders(ctx, org.organizationId, 'member');
  });
  after(() => ctx.close());

  it('registers a public client and refuses confidential clients, bad redirect URIs and unknown scopes', async () => {
    const ok = await register({ client_name: 'Agent', redirect_uris: [REDIRECT], scope: 'brands:read publish:write', software_id: 'x' });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().token_endpoint_auth_method, 'none');
    assert.match(ok.json().client_id, /^mcp_/);
    assert.equal(ok.json().scope, 'brands:read publish:write');
    assert.equal(ok.json().client_secret, undefined);

    const secretClient = await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' });
    assert.equal(secretClient.statusCode, 400);
    assert.equal(secretClient.json().error, 'invalid_client_metadata');
    for (const uri of ['http://evil.example/cb', 'https://app.example/cb#frag', 'javascript:alert(1)']) {
      const bad = await register({ redirect_uris: [uri] });
      assert.equal(bad.statusCode, 400, uri);
      assert.equal(bad.json().error, 'invalid_redirect_uri', uri);
    }
    const scope = await register({ redirect_uris: [REDIRECT], scope: 'brands:read admin:everything' });
    assert.equal(scope.json().error, 'invalid_client_metadata');
    const none = await register({ client_name: 'No URIs' });
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().error, 'invalid_client_metadata');
  });

  it('limits registrations per address (429 with Retry-After)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await register({ redirect_uris: [REDIRECT] }, '10.0.0.2')).statusCode);
    assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429]);
    const limited = await register({ redirect_uris: [REDIRECT] }, '10.0.0.2');
    assert.equal(limited.json().error, 'public_api_rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal((await register({ redirect_uris: [REDIRECT] }, '10.0.0.3')).statusCode, 201, 'another address is not limited');
  });

  it('a public client gets MCP tokens with its client id alone, never API tokens, and never with a secret', async () => {
    const clientId = (await register({ client_name: 'MCP agent', redirect_uris: [REDIRECT] }, '10.0.0.4')).json().client_id as string;
    // members do not consent
    const byMember = await ctx.app.inject({ method: 'GET', url: `/v1/oauth/authorize?${params(clientId)}`, headers: member });
    assert.equal(byMember.statusCode, 403);
    const consent = await ctx.app.inject({ method: 'GET', url: `/v1/oauth/authorize?${params(clientId)}`, headers: admin });
    assert.equal(consent.statusCode, 200, consent.body);
    assert.equal(consent.json().registration, 'dynamic');
    assert.equal(consent.json().resource, `${ISSUER}/mcp`, 'omitted resource means the MCP endpoint');
    const apiTarget = await ctx.app.inject({
      method: 'GET',
      url: `/v1/oauth/authorize?${params(clientId, { resource: ISSUER })}`,
      headers: admin,
    });
    assert.equal(apiTarget.statusCode, 400);
    assert.equal(apiTarget.json().error, 'invalid_target');

    const c = await code(clientId, { resource: `${ISSUER}/mcp` });
    const withSecret = await token({
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: clientId,
      client_secret: 'guess',
    });
    assert.equal(withSecret.statusCode, 401);
    assert.equal(withSecret.json().error, 'invalid_client');
    const wrongTarget = await token({
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: clientId,
      resource: 'https://other.example/mcp',
    });
    assert.equal(wrongTarget.statusCode, 400);
    assert.equal(wrongTarget.json().error, 'invalid_target');
    const pair = await token({
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: clientId,
      resource: `${ISSUER}/mcp`,
    });
    assert.equal(pair.statusCode, 200, pair.body);
    const { access_token, refresh_token } = pair.json();
    const rest = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(rest.statusCode, 401, 'the REST API refuses a token for /mcp');
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token, client_id: clientId });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const stillMcp = await ctx.app.inject({
      method: 'GET',
      url: '/v1/brands',
      headers: { authorization: `Bearer ${refreshed.json().access_token}` },
    });
    assert.equal(stillMcp.statusCode, 401, 'a refreshed token keeps its resource');
  });

  it('a dashboard app gets API tokens by default, MCP tokens when it asks, and cannot drop its secret', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/apps',
      headers: admin,
      payload: { name: 'Confidential', redirectUris: [REDIRECT], scopes: ['brands:read'] },
    });
    const clientId = created.json().oauthApp.clientId as string;
    const basic = { authorization: `Basic ${Buffer.from(`${clientId}:${created.json().clientSecret}`).toString('base64')}` };
    const noSecret = await token({
      grant_type: 'authorization_code',
      code: await code(clientId),
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
      client_id: clientId,
    });
    assert.equal(noSecret.statusCode, 401, 'a confidential client is not a public one');
    const api = await token(
      { grant_type: 'authorization_code', code: await code(clientId), redirect_uri: REDIRECT, code_verifier: VERIFIER },
      basic,
    );
    assert.equal(api.statusCode, 200, api.body);
    const rest = await ctx.app.inject({
      method: 'GET',
      url: '/v1/brands',
      headers: { authorization: `Bearer ${api.json().access_token}` },
    });
    assert.equal(rest.statusCode, 200);
    const mcp = await token(
      {
        grant_type: 'authorization_code',
        code: await code(clientId, { resource: `${ISSUER}/mcp` }),
        redirect_uri: REDIRECT,
        code_verifier: VERIFIER,
      },
      basic,
    );
    assert.equal(mcp.statusCode, 200, mcp.body);
    const refused = await ctx.app.inject({
      method: 'GET',
      url: '/v1/brands',
      headers: { authorization: `Bearer ${mcp.json().access_token}` },
    });
    assert.equal(refused.statusCode, 401);
  });

  it('the maintenance prune deletes self-registered clients nobody consented to within 7 days', async () => {
    const unused = (await register({ client_name: 'Never used', redirect_uris: [REDIRECT] })).json().client_id as string;
    const used = (await register({ client_name: 'Used', redirect_uris: [REDIRECT] })).json().client_id as string;
    await code(used);
    const prune = ctx.root.areas.identity.pruneUnusedClients;
    assert.equal(await prune.prune(ctx.database.db, new Date(ctx.clock.now().getTime() + 6 * 86_400_000), 1000), 0, 'not before 7 days');
    assert.ok((await prune.prune(ctx.database.db, new Date(ctx.clock.now().getTime() + 8 * 86_400_000), 1000)) >= 1);
    const gone = await ctx.app.inject({ method: 'GET', url: `/v1/oauth/authorize?${params(unused)}`, headers: admin });
    assert.equal(gone.statusCode, 404);
    const kept = await ctx.app.inject({ method: 'GET', url: `/v1/oauth/authorize?${params(used)}`, headers: admin });
    assert.equal(kept.statusCode, 200, kept.body);
  });
});
