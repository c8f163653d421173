/**
 * What a signed-in admin sets up from the dashboard alone: sign-in on either loopback spelling of the
 * embedded default, the role's policies in /v1/me, channel connect and disconnect with the session cookie,
 * brands and products created and edited, and their own tool API keys (tiers and scopes of the tool API).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { identityRepository } from '../../src/modules/identity/identity.repository.js';
import { addMember, cookieValue, PASSWORD, setCookies } from '../support/auth.js';
import { putChannel } from '../support/channels.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const OWN = 'http://localhost:8080';

describe('workspace setup from the dashboard (session cookie)', () => {
  let ctx: TestContext;
  let organizationId = '';
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  const admin = { cookie: '', userId: '', email: '' };
  const member = { cookie: '' };
  const as = (who: { cookie: string }, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, origin = OWN) =>
    ctx.app.inject({
      method,
      url,
      headers: { cookie: `service_dashboard_session=${who.cookie}`, origin },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  async function signInFrom(origin: string, email: string) {
    const start = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/browser-session/start',
      headers: { origin },
      payload: { email, password: PASSWORD },
    });
    if (start.statusCode !== 200) return { start, session: null };
    const binding = cookieValue(setCookies(start), 'service_browser_session_exchange')!;
    const ex = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/browser-session/exchange',
      headers: { origin, cookie: `service_browser_session_exchange=${binding}` },
      payload: { authorizationCode: start.json().authorizationCode, nonce: start.json().nonce },
    });
    assert.equal(ex.statusCode, 200, ex.body);
    return { start, session: cookieValue(setCookies(ex), 'service_dashboard_session')! };
  }

  before(async () => {
    // the embedded default: no SERVICE_DASHBOARD_ORIGINS, the service's own origin on localhost
    ctx = await createTestContext({
      env: { SERVICE_PUBLIC_BASE_URL: OWN, SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS: OWN, SERVICE_PROVIDER_MODE: 'sandbox' },
    });
    org = await ctx.createOrganization({ name: 'Setup org' });
    organizationId = org.organizationId;
    const a = await addMember(ctx, organizationId, 'admin');
    Object.assign(admin, a);
    admin.cookie = (await signInFrom(OWN, a.email)).session!;
    member.cookie = (await signInFrom(OWN, (await addMember(ctx, organizationId, 'member')).email)).session!;
  });
  after(async () => ctx?.close());

  it('signs in on both loopback spellings of its own origin; another origin is told what to do', async () => {
    const numeric = await signInFrom('http://127.0.0.1:8080', admin.email);
    assert.ok(numeric.session, numeric.start.body);
    const other = await signInFrom('http://127.0.0.1:9999', admin.email);
    assert.equal(other.start.statusCode, 403);
    const { message } = other.start.json();
    assert.match(message, /http:\/\/127\.0\.0\.1:9999 is not an approved dashboard origin/);
    assert.match(message, /Open the dashboard at http:\/\/localhost:8080\/app\//);
    assert.match(message, /SERVICE_DASHBOARD_ORIGINS/);
  });

  it("/v1/me lists the policies the member's role reaches", async () => {
    const mine = (await as(admin, 'GET', '/v1/me')).json();
    assert.ok(mine.policies.includes('workspace.brands.initialize'));
    assert.ok(!mine.policies.includes('admin.db.migrate'), 'internal-only rows are never listed');
    const theirs = (await as(member, 'GET', '/v1/me')).json();
    assert.ok(theirs.policies.includes('publishing.drafts.manage'));
    assert.ok(!theirs.policies.includes('workspace.brands.initialize'));
  });

  it('creates and edits a brand and its product; an unknown time zone is refused with its field', async () => {
    const brand = await as(admin, 'POST', '/v1/brands', { name: 'Acme Coffee', timezone: 'Europe/Berlin' });
    assert.equal(brand.statusCode, 201, brand.body);
    const brandId = brand.json().brandId;
    const renamed = await as(admin, 'PATCH', `/v1/brands/${brandId}`, { name: 'Acme Roasters', timezone: 'America/New_York' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().name, 'Acme Roasters');
    assert.equal(renamed.json().timezone, 'America/New_York');
    const badZone = await as(admin, 'PATCH', `/v1/brands/${brandId}`, { timezone: 'Mars/Olympus' });
    assert.equal(badZone.statusCode, 400);
    assert.deepEqual(badZone.json().fields[0].path, ['timezone']);
    assert.equal((await as(member, 'PATCH', `/v1/brands/${brandId}`, { name: 'x' })).statusCode, 403);

    const product = await as(admin, 'POST', `/v1/brands/${brandId}/products`, { name: 'Beans', productUrl: 'https://acme.test/beans' });
    assert.equal(product.statusCode, 201, product.body);
    const productId = product.json().productId;
    const edited = await as(admin, 'PATCH', `/v1/brands/${brandId}/products/${productId}`, { name: 'Dark beans', productUrl: null });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().name, 'Dark beans');
    assert.equal(edited.json().productUrl, null);
    const other = await ctx.createOrganization({ name: 'Other' });
    const foreign = await ctx.createBrand(other.organizationId, 'Foreign');
    assert.equal((await as(admin, 'PATCH', `/v1/brands/${foreign.brandId}`, { name: 'mine now' })).statusCode, 404);
  });

  it('connects and disconnects a channel with the session cookie (admins), not a member', async () => {
    const refused = await as(member, 'POST', '/v1/channel-accounts/connect-url', { platform: 'x' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, 'permission_denied');
    const url = await as(admin, 'POST', '/v1/channel-accounts/connect-url', { platform: 'x', returnUrl: `${OWN}/app/channels` });
    assert.equal(url.statusCode, 200, url.body);
    assert.ok(url.json().authorizationUrl.startsWith('http'));
    // a channel made with the API, renamed and disconnected with the admin's session
    const channelAccountId = await putChannel(ctx, org, { platform: 'x', externalAccountId: 'setup-1', displayName: 'Acme on X' });
    assert.equal((await as(member, 'DELETE', `/v1/channel-accounts/${channelAccountId}`, { organizationId })).statusCode, 403);
    const gone = await as(admin, 'DELETE', `/v1/channel-accounts/${channelAccountId}`, { organizationId, reason: 'dashboard' });
    assert.equal(gone.statusCode, 200, gone.body);
    assert.equal(gone.json().state, 'deleted');
    assert.ok(gone.json().disconnectSummary, 'the summary the dashboard shows');
  });

  it('creates, lists and revokes its own tool API keys by tier and scope', async () => {
    const basic = await as(admin, 'POST', '/v1/me/tool-keys', { name: 'Spreadsheet' });
    assert.equal(basic.statusCode, 403);
    assert.equal(basic.json().error, 'membership_required');
    const before = (await as(admin, 'GET', '/v1/me/tool-keys')).json();
    assert.equal(before.tier, 'basic');
    assert.equal(before.apiAccess, false);

    await identityRepository.setUserTier(ctx.database.db, admin.userId, 'pro', new Date());
    const badScope = await as(admin, 'POST', '/v1/me/tool-keys', { scopes: ['tools:everything'] });
    assert.equal(badScope.statusCode, 400, badScope.body);
    const created = await as(admin, 'POST', '/v1/me/tool-keys', { name: 'Spreadsheet', scopes: ['tools:qrcode:generate'] });
    assert.equal(created.statusCode, 201, created.body);
    const { apiKey, apiKeyId } = created.json();
    const list = (await as(admin, 'GET', '/v1/me/tool-keys')).json();
    assert.equal(list.tier, 'pro');
    assert.equal(list.limits.requestsPerMinute, 60);
    assert.equal(list.data.length, 1);
    assert.ok(!JSON.stringify(list).includes(apiKey), 'the listing never shows the secret');

    const utm = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/tools/utm-builder/build',
        headers: { authorization: `Bearer ${apiKey}` },
        payload: { urls: ['https://acme.test'], source: 'news', medium: 'email', campaign: 'x' },
      });
    assert.equal((await utm()).json().error.code, 'insufficient_scope', 'the scope limits the tools');

    const otherMember = await addMember(ctx, organizationId, 'admin');
    const otherCookie = (await signInFrom(OWN, otherMember.email)).session!;
    assert.equal((await as({ cookie: otherCookie }, 'DELETE', `/v1/me/tool-keys/${apiKeyId}`)).statusCode, 404, "another person's key");
    const revoked = await as(admin, 'DELETE', `/v1/me/tool-keys/${apiKeyId}`);
    assert.equal(revoked.statusCode, 204, revoked.body);
    assert.equal((await utm()).json().error.code, 'invalid_api_key', 'the next tool request is refused');
    assert.equal((await as(admin, 'GET', '/v1/me/tool-keys')).json().data[0].status, 'revoked');
  });
});
