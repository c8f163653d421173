/**
 * The dashboard pages' API routes with a signed-in person's session cookie: each route's policy
 * (docs/sessions.md) decides by role; writes need an approved Origin; the organization comes from the
 * session; an Authorization header keeps the API-key path.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, addMember, DASHBOARD, signIn } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const id = randomUUID();
// route -> minimum role (member routes are open to admins too)
const TABLE: Array<[Method, string, 'member' | 'admin']> = [
  ['POST', '/v1/publish/plans/preview', 'member'],
  ['POST', '/v1/publish/jobs', 'member'],
  ['GET', '/v1/publish/jobs', 'member'],
  ['GET', `/v1/publish/jobs/${id}`, 'member'],
  ['GET', '/v1/publish/slots', 'member'],
  // a member passes the route's policy; the organization's setting decides in the service (403 unless
  // members publish directly: test/publishing/approvals.test.ts)
  ['POST', `/v1/publish/jobs/${id}/enqueue`, 'member'],
  ['POST', `/v1/publish/jobs/${id}/schedule`, 'member'],
  ['POST', `/v1/publish/jobs/${id}/submit`, 'member'],
  ['POST', `/v1/publish/jobs/${id}/approve`, 'admin'],
  ['POST', `/v1/publish/jobs/${id}/reject`, 'admin'],
  ['GET', '/v1/publish/settings', 'member'],
  ['PATCH', '/v1/publish/settings', 'admin'],
  ['POST', `/v1/publish/jobs/${id}/cancel`, 'admin'],
  ['POST', '/v1/publish/url-reconciliation', 'admin'],
  ['POST', '/v1/publish/batches/preview', 'admin'],
  ['POST', '/v1/publish/batches', 'admin'],
  ['GET', '/v1/publish/batches', 'admin'],
  ['GET', `/v1/publish/batches/${id}`, 'admin'],
  ['GET', '/v1/assets', 'admin'],
  ['GET', '/v1/analytics/snapshots', 'member'],
  ['POST', '/v1/analytics/sync', 'admin'],
  ['GET', '/v1/social-comments', 'member'],
  ['GET', `/v1/social-comments/${id}`, 'member'],
  ['POST', '/v1/social-comments/sync', 'admin'],
  ['POST', `/v1/social-comments/${id}/reply`, 'admin'],
  ['POST', '/v1/social-comments/reply-drafts', 'admin'],
  ['GET', '/v1/automation-sources', 'admin'],
  ['POST', '/v1/automation-sources', 'admin'],
  ['GET', '/v1/automation-runs', 'admin'],
  ['GET', '/v1/brands', 'member'],
  ['GET', '/v1/channel-accounts', 'member'],
  ['POST', '/v1/channel-accounts/connect-url', 'admin'],
  ['GET', `/v1/channel-accounts/${id}/choices`, 'admin'],
  ['POST', `/v1/channel-accounts/${id}/select`, 'admin'],
  ['PATCH', `/v1/channel-accounts/${id}`, 'admin'],
  ['DELETE', `/v1/channel-accounts/${id}`, 'admin'],
  ['PATCH', `/v1/brands/${id}`, 'admin'],
  ['GET', '/v1/media', 'member'],
  ['POST', '/v1/media', 'member'],
  ['GET', '/v1/publishing-profiles', 'member'],
];

describe('dashboard pages with a session cookie (permission policies)', () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  let brandId = '';
  const cookie = { member: '', admin: '', otherAdmin: '' };
  const asSession = (role: keyof typeof cookie, method: Method, url: string, origin = DASHBOARD, extra: Record<string, string> = {}) =>
    ctx.app.inject({
      method,
      url,
      headers: { cookie: `service_dashboard_session=${cookie[role]}`, ...(origin ? { origin } : {}), ...extra },
      ...(method === 'GET' ? {} : { payload: {} }),
    });

  before(async () => {
    ctx = await createTestContext({ env: AUTH_ENV });
    org = await ctx.createOrganization({ name: 'Pages by session' });
    const other = await ctx.createOrganization({ name: 'Another organization' });
    brandId = (await ctx.createBrand(org.organizationId, 'Session brand')).brandId;
    cookie.member = await signIn(ctx, (await addMember(ctx, org.organizationId, 'member')).email);
    cookie.admin = await signIn(ctx, (await addMember(ctx, org.organizationId, 'admin')).email);
    cookie.otherAdmin = await signIn(ctx, (await addMember(ctx, other.organizationId, 'admin')).email);
  });
  after(async () => ctx?.close());

  for (const [method, url, minimum] of TABLE) {
    it(`${method} ${url.replace(id, ':id')}: ${minimum} and above`, async () => {
      const admin = await asSession('admin', method, url);
      assert.ok(![401, 403].includes(admin.statusCode), `admin: ${admin.statusCode} ${admin.body}`);
      const member = await asSession('member', method, url);
      if (minimum === 'member') assert.ok(![401, 403].includes(member.statusCode), `member: ${member.statusCode} ${member.body}`);
      else {
        assert.equal(member.statusCode, 403, member.body);
        assert.equal(member.json().error, 'permission_denied');
      }
      if (method !== 'GET') {
        for (const origin of ['', 'https://evil.example']) {
          const res = await asSession('admin', method, url, origin);
          assert.equal(res.statusCode, 403, `origin ${origin || '(none)'}: ${res.body}`);
          assert.equal(res.json().error, 'permission_denied');
        }
      }
    });
  }

  it("another organization's admin sees nothing of this one", async () => {
    const brands = await asSession('otherAdmin', 'GET', '/v1/brands');
    assert.equal(brands.statusCode, 200, brands.body);
    assert.ok(!JSON.stringify(brands.json()).includes(brandId));
    const mine = await asSession('member', 'GET', '/v1/brands');
    assert.ok(JSON.stringify(mine.json()).includes(brandId), 'the member sees the brand of their organization');
    const one = await asSession('otherAdmin', 'GET', `/v1/brands/${brandId}`);
    assert.equal(one.statusCode, 404, one.body);
    const preview = await ctx.app.inject({
      method: 'POST',
      url: '/v1/publish/plans/preview',
      headers: { cookie: `service_dashboard_session=${cookie.otherAdmin}`, origin: DASHBOARD },
      payload: { brandId, text: 'hello', media: [], targets: [{ platform: 'x', channelAccountId: randomUUID() }] },
    });
    assert.equal(preview.statusCode, 200, preview.body);
    assert.equal(preview.json().valid, false);
    assert.ok(
      preview.json().issues.some((i: { code: string }) => i.code === 'brand_not_found'),
      'the brand is not in the session organization',
    );
  });

  it('an Authorization header takes the API-key path, cookie or not', async () => {
    // a member's cookie does not widen anything: the API key's scopes decide (an admin-only route)
    const withKey = await asSession('member', 'GET', '/v1/publish/batches', '', org.auth);
    assert.equal(withKey.statusCode, 200, withKey.body);
    const badKey = await asSession('admin', 'GET', '/v1/brands', '', { authorization: 'Bearer sk_not_a_key' });
    assert.equal(badKey.statusCode, 401);
    assert.equal(badKey.json().error, 'public_api_token_forbidden');
    const none = await ctx.app.inject({ url: '/v1/brands' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'public_api_token_required');
    const key = await ctx.app.inject({ method: 'POST', url: '/v1/analytics/sync', headers: org.auth, payload: {} });
    assert.ok(![401, 403].includes(key.statusCode), 'a key needs no Origin on writes');
  });
});
