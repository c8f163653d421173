/**
 * Webhook endpoints managed from the dashboard: the webhook routes take the dashboard session cookie
 * under the specification's policies webhooks.endpoints.manage / webhooks.deliveries.manage (admin and
 * above), with the approved-Origin rule on writes, next to the public API's bearer credentials.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, addMember, DASHBOARD, signIn } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('webhook routes with a dashboard session', () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  let other: Awaited<ReturnType<TestContext['createOrganization']>>;
  const cookie: Record<'member' | 'admin' | 'owner' | 'otherAdmin', string> = { member: '', admin: '', owner: '', otherAdmin: '' };
  const asSession = (
    role: keyof typeof cookie,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    origin = DASHBOARD,
  ) =>
    ctx.app.inject({
      method,
      url,
      headers: { cookie: `service_dashboard_session=${cookie[role]}`, ...(origin ? { origin } : {}) },
      ...(payload ? { payload } : {}),
    });

  before(async () => {
    ctx = await createTestContext({ env: AUTH_ENV });
    org = await ctx.createOrganization({ name: 'Hooks by session' });
    other = await ctx.createOrganization({ name: 'Someone else' });
    for (const role of ['member', 'admin', 'owner'] as const)
      cookie[role] = await signIn(ctx, (await addMember(ctx, org.organizationId, role)).email);
    cookie.otherAdmin = await signIn(ctx, (await addMember(ctx, other.organizationId, 'admin')).email);
  });
  after(async () => ctx?.close());

  it('an admin creates an endpoint (secret once), lists it, sends a test event, reads the log and redelivers', async () => {
    const created = await asSession('admin', 'POST', '/v1/webhook-endpoints', {
      url: 'https://hooks.example.com/admin',
      description: 'by session',
    });
    assert.equal(created.statusCode, 201, created.body);
    const webhookEndpoint = created.json();
    const secret: string = webhookEndpoint.secret;
    assert.match(secret, /^whsec_/);
    assert.equal(webhookEndpoint.organizationId, org.organizationId);
    // GET needs no Origin header (the rule concerns state-changing methods)
    const list = await asSession('admin', 'GET', '/v1/webhook-endpoints', undefined, '');
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(
      list.json().data.map((e: { webhookEndpointId: string }) => e.webhookEndpointId),
      [webhookEndpoint.webhookEndpointId],
    );
    assert.ok(!JSON.stringify(list.json()).includes(secret), 'the secret is never listed');
    const id = webhookEndpoint.webhookEndpointId;
    const test = await asSession('owner', 'POST', `/v1/webhook-endpoints/${id}/test`);
    assert.equal(test.statusCode, 202, test.body);
    const log = await asSession('admin', 'GET', `/v1/webhook-endpoints/${id}/deliveries`);
    assert.equal(log.statusCode, 200, log.body);
    assert.equal(log.json().data[0].eventType, 'webhook_endpoint.test');
    const again = await asSession('admin', 'POST', `/v1/webhook-deliveries/${log.json().data[0].deliveryId}/redeliver`);
    assert.equal(again.statusCode, 202, again.body);
    const patched = await asSession('admin', 'PATCH', `/v1/webhook-endpoints/${id}`, { description: 'renamed' });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().description, 'renamed');
    // the same endpoint through the public API key: one organization, one list
    const viaKey = await ctx.app.inject({ url: '/v1/webhook-endpoints', headers: org.auth });
    assert.equal(viaKey.json().data[0].description, 'renamed');
  });

  it('a member is refused (403 permission_denied) reading and writing', async () => {
    const read = await asSession('member', 'GET', '/v1/webhook-endpoints');
    assert.equal(read.statusCode, 403, read.body);
    assert.equal(read.json().error, 'permission_denied');
    const write = await asSession('member', 'POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/member' });
    assert.equal(write.statusCode, 403);
    assert.equal(write.json().error, 'permission_denied');
    const viaKey = await ctx.app.inject({ url: '/v1/webhook-endpoints', headers: org.auth });
    assert.ok(!viaKey.json().data.some((e: { url: string }) => e.url.endsWith('/member')));
  });

  it('writes with the cookie need an approved Origin (CSRF); an unknown session is 401', async () => {
    for (const origin of ['', 'https://evil.example']) {
      const res = await asSession('admin', 'POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/csrf' }, origin);
      assert.equal(res.statusCode, 403, `origin ${origin || '(none)'}: ${res.body}`);
      assert.equal(res.json().error, 'permission_denied');
    }
    const foreignRead = await asSession('admin', 'GET', '/v1/webhook-endpoints', undefined, 'https://evil.example');
    assert.equal(foreignRead.statusCode, 403);
    const unknown = await ctx.app.inject({
      url: '/v1/webhook-endpoints',
      headers: { cookie: 'service_dashboard_session=not-a-session', origin: DASHBOARD },
    });
    assert.equal(unknown.statusCode, 401);
    assert.equal(unknown.json().error, 'dashboard_session_required');
  });

  it("a session only sees its own organization's endpoints", async () => {
    const list = await asSession('otherAdmin', 'GET', '/v1/webhook-endpoints');
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().data, []);
    const mine = (await ctx.app.inject({ url: '/v1/webhook-endpoints', headers: org.auth })).json().data[0];
    const peek = await asSession('otherAdmin', 'GET', `/v1/webhook-endpoints/${mine.webhookEndpointId}/deliveries`);
    assert.equal(peek.statusCode, 404);
    assert.equal(peek.json().error, 'webhook_endpoint_not_found');
  });

  it('a bearer credential decides when one is sent; no credential keeps the public API answer', async () => {
    // a member's cookie next to a valid API key: the API key's scopes decide
    const both = await ctx.app.inject({
      url: '/v1/webhook-endpoints',
      headers: { ...org.auth, cookie: `service_dashboard_session=${cookie.member}` },
    });
    assert.equal(both.statusCode, 200, both.body);
    const badBearer = await ctx.app.inject({
      url: '/v1/webhook-endpoints',
      headers: { authorization: 'Bearer sk_not_a_key', cookie: `service_dashboard_session=${cookie.admin}` },
    });
    assert.equal(badBearer.statusCode, 401);
    assert.equal(badBearer.json().error, 'public_api_token_forbidden');
    const none = await ctx.app.inject({ url: '/v1/webhook-endpoints' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'public_api_token_required');
  });

  it('the OpenAPI document lists both credentials on the webhook routes', async () => {
    const doc = (await ctx.app.inject({ url: '/v1/openapi.json' })).json();
    const op = doc.paths['/v1/webhook-endpoints'].post;
    assert.deepEqual(op.security, [{ publicBearer: [] }, { dashboardSessionCookie: [] }]);
    assert.match(op.responses['403'].description, /permission_denied/);
  });
});
