/**
 * Dashboard sign-in through an OpenID Connect provider (oidc-provider on loopback): the code flow with
 * PKCE, state and nonce, linking by verified email, just-in-time membership only for an allowed domain,
 * and the same 400 for every refused callback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { identityProviderRepository } from '../../src/modules/identity/identity-provider.repository.js';
import { runMaintenance } from '../../src/modules/maintenance/maintenance.jobs.js';
import { AUTH_ENV, addMember, cookieValue, DASHBOARD, setCookies } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { startOidcProvider, type TestOidcProvider } from '../support/oidc-provider.js';

const REDIRECT = `${DASHBOARD}/app/sign-in/identity-provider`;
const LOGIN_COOKIE = 'service_identity_provider_login';

describe('sign-in through an OpenID Connect provider', () => {
  let op: TestOidcProvider;
  let ctx: TestContext;
  let org: { organizationId: string };

  before(async () => {
    op = await startOidcProvider(REDIRECT);
    ctx = await createTestContext({
      env: {
        ...AUTH_ENV,
        SERVICE_OIDC_ISSUER: op.issuer,
        SERVICE_OIDC_CLIENT_ID: op.clientId,
        SERVICE_OIDC_CLIENT_SECRET: op.clientSecret,
        SERVICE_OIDC_PROVIDER_NAME: 'Acme SSO',
        SERVICE_OIDC_REDIRECT_URI: REDIRECT,
      },
    });
    org = await ctx.createOrganization({ name: 'Acme' });
  });
  after(async () => {
    await ctx?.close();
    await op?.close();
  });

  const start = async (origin = DASHBOARD) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/identity-provider/start',
      headers: { origin },
      payload: { returnTo: '/calendar' },
    });
    assert.equal(res.statusCode, 200, res.body);
    return { url: new URL(res.json().authorizationUrl as string), binding: cookieValue(setCookies(res), LOGIN_COOKIE)! };
  };
  const callback = (params: URLSearchParams, binding: string | undefined, origin = DASHBOARD) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/identity-provider/callback',
      headers: { origin, ...(binding ? { cookie: `${LOGIN_COOKIE}=${binding}` } : {}) },
      payload: { code: params.get('code'), state: params.get('state'), ...(params.get('iss') ? { iss: params.get('iss') } : {}) },
    });
  /** the whole round trip as the provider's account; the callback's answer */
  const signInAs = async (accountId: string) => {
    const s = await start();
    return callback(await op.login(s.url.href, accountId), s.binding);
  };
  const me = (res: { headers: Record<string, unknown> }) =>
    ctx.app.inject({
      method: 'GET',
      url: '/v1/me',
      headers: { cookie: `service_dashboard_session=${cookieValue(setCookies(res), 'service_dashboard_session')}` },
    });

  it('answers whether a provider is configured, with its name for the button', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/auth/identity-provider' });
    assert.deepEqual(res.json(), { configured: true, name: 'Acme SSO' });
    const bare = await createTestContext({ env: AUTH_ENV });
    try {
      assert.deepEqual((await bare.app.inject({ method: 'GET', url: '/v1/auth/identity-provider' })).json(), {
        configured: false,
        name: null,
      });
      const r = await bare.app.inject({
        method: 'POST',
        url: '/v1/auth/identity-provider/start',
        headers: { origin: DASHBOARD },
        payload: {},
      });
      assert.equal(r.statusCode, 404, r.body);
      assert.equal(r.json().error, 'identity_provider_not_configured');
    } finally {
      await bare.close();
    }
  });

  it('sends the browser to the provider with the code flow, PKCE S256, state and nonce, from an approved origin only', async () => {
    const { url, binding } = await start();
    assert.equal(url.origin, op.issuer);
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('client_id'), op.clientId);
    assert.equal(url.searchParams.get('redirect_uri'), REDIRECT);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(url.searchParams.get('state')!.length >= 32);
    assert.ok(url.searchParams.get('nonce')!.length >= 32);
    assert.match(url.searchParams.get('scope')!, /openid/);
    assert.ok(binding.length >= 32);
    const foreign = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/identity-provider/start',
      headers: { origin: 'https://evil.example' },
      payload: {},
    });
    assert.equal(foreign.statusCode, 403, foreign.body);
  });

  it('links an existing user by verified email and signs them in; later by the provider account even if the email changes', async () => {
    const { userId, email } = await addMember(ctx, org.organizationId, 'admin');
    op.accounts.set('alice', { email: email.toUpperCase(), email_verified: true, name: 'Alice' });
    const res = await signInAs('alice');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.user.userId, userId);
    assert.equal(body.organizationId, org.organizationId);
    assert.equal(body.role, 'admin');
    assert.equal(body.returnTo, '/calendar');
    assert.equal(cookieValue(setCookies(res), LOGIN_COOKIE), '');
    const who = await me(res);
    assert.equal(who.statusCode, 200, who.body);
    assert.equal(who.json().user.userId, userId);

    op.accounts.set('alice', { email: 'alice@elsewhere.example', email_verified: false });
    const again = await signInAs('alice');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().user.userId, userId);
  });

  it('never links by an unverified email', async () => {
    const { email } = await addMember(ctx, org.organizationId, 'owner');
    op.accounts.set('mallory', { email, email_verified: false });
    const res = await signInAs('mallory');
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().error, 'identity_provider_account_not_allowed');
    assert.equal(
      setCookies(res).some((c) => c.startsWith('service_dashboard_session=') && !c.startsWith('service_dashboard_session=;')),
      false,
    );
  });

  it('creates a member just in time only where the organization lets the email domain join', async () => {
    op.accounts.set('bob', { email: 'bob@acme.example', email_verified: true, name: 'Bob Builder' });
    const refused = await signInAs('bob');
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().error, 'identity_provider_account_not_allowed');
    assert.equal(
      await ctx.database.db.selectFrom('users').select('id').where('email', '=', 'bob@acme.example').executeTakeFirst(),
      undefined,
    );

    await identityProviderRepository.setJoinRule(ctx.database.db, {
      emailDomain: 'acme.example',
      organizationId: org.organizationId,
      role: 'member',
      at: new Date(),
    });
    const joined = await signInAs('bob');
    assert.equal(joined.statusCode, 200, joined.body);
    assert.equal(joined.json().organizationId, org.organizationId);
    assert.equal(joined.json().role, 'member');
    assert.equal(joined.json().user.email, 'bob@acme.example');
    assert.equal(joined.json().user.displayName, 'Bob Builder');

    // an unverified email of the domain does not join
    op.accounts.set('carol', { email: 'carol@acme.example', email_verified: false });
    assert.equal((await signInAs('carol')).statusCode, 403);
  });

  it('refuses a replayed state, a missing cookie, another origin and a forged code with the same 400', async () => {
    op.accounts.set('dave', { email: (await addMember(ctx, org.organizationId, 'member')).email, email_verified: true });
    const s = await start();
    const params = await op.login(s.url.href, 'dave');
    const noCookie = await callback(params, undefined);
    assert.equal(noCookie.statusCode, 400, noCookie.body);
    assert.equal(noCookie.json().error, 'identity_provider_sign_in_failed');
    // the state was consumed by that attempt: the right cookie does not bring it back
    const replay = await callback(params, s.binding);
    assert.equal(replay.statusCode, 400, replay.body);

    const s2 = await start();
    const p2 = await op.login(s2.url.href, 'dave');
    const otherOrigin = await callback(p2, s2.binding, 'https://evil.example');
    assert.equal(otherOrigin.statusCode, 400, otherOrigin.body);

    const s3 = await start();
    const p3 = await op.login(s3.url.href, 'dave');
    p3.set('code', `${p3.get('code')}x`);
    const forged = await callback(p3, s3.binding);
    assert.equal(forged.statusCode, 400, forged.body);
    assert.equal(forged.json().error, 'identity_provider_sign_in_failed');

    const s4 = await start();
    const ok = await callback(await op.login(s4.url.href, 'dave'), s4.binding);
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('prunes logins past their 10 minutes in the maintenance job', async () => {
    await start();
    const later = new Date(Date.now() + 11 * 60_000);
    const result = await runMaintenance(ctx.database.db, later, ctx.root.prunes.all());
    assert.ok(result.expiredIdentityProviderLogins! >= 1);
    const left = await ctx.database.db
      .selectFrom('identity_provider_logins')
      .select('state_hash')
      .where('expires_at', '<', later)
      .execute();
    assert.equal(left.length, 0);
  });
});
