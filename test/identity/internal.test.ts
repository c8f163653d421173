import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, DASHBOARD, INTERNAL_TOKEN, PRINCIPAL_TOKEN, sessionHeaders } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('internal routes through the policy table', () => {
  let ctx: TestContext;
  let admin: Record<string, string>;
  let member: Record<string, string>;

  before(async () => {
    ctx = await createTestContext({ env: AUTH_ENV });
    const org = await ctx.createOrganization({ name: 'Internal' });
    admin = await sessionHeaders(ctx, org.organizationId, 'admin');
    member = await sessionHeaders(ctx, org.organizationId, 'member');
  });
  after(() => ctx.close());

  it('db migrate: service tokens only (internal only), never from a browser', async () => {
    const call = (headers: Record<string, string>) => ctx.app.inject({ method: 'POST', url: '/v1/internal/db/migrate', headers });
    const tokens: Record<string, string>[] = [
      { 'x-service-internal-token': INTERNAL_TOKEN },
      { 'x-service-principal-token': PRINCIPAL_TOKEN },
    ];
    for (const headers of tokens) {
      const ok = await call(headers);
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(ok.json().applied, []);
      assert.equal((await call({ ...headers, origin: DASHBOARD })).statusCode, 403);
    }
    assert.equal((await call(admin)).statusCode, 403);
    assert.equal((await call({ 'x-service-internal-token': 'wrong' })).statusCode, 403);
    // no credential at all on an internal-only row: the internal token is what is missing (401)
    const none = await call({});
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'internal_token_required');
  });

  it('scheduler enqueue: service tokens or an admin session; members refused', async () => {
    const call = (headers: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url: '/v1/internal/automations/scheduler/enqueue', headers });
    assert.equal((await call({ 'x-service-internal-token': INTERNAL_TOKEN })).statusCode, 200);
    assert.equal((await call({ 'x-service-principal-token': PRINCIPAL_TOKEN })).statusCode, 200);
    const asAdmin = await call(admin);
    assert.equal(asAdmin.statusCode, 200, asAdmin.body);
    assert.equal(asAdmin.json().enqueued, 0);
    const asMember = await call(member);
    assert.equal(asMember.statusCode, 403);
    assert.equal(asMember.json().error, 'permission_denied');
  });
});
