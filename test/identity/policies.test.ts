import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { actorOf, installDashboardAuth, requirePolicy } from '../../src/http/dashboard-auth.js';
import { errorHandling } from '../../src/http/error-handler.js';
import { dashboardPolicies, POLICIES, SPEC_POLICY_IDS } from '../../src/modules/identity/policies.js';
import { AUTH_ENV, addMember, DASHBOARD, INTERNAL_TOKEN, PRINCIPAL_TOKEN, signIn } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

// the specification's table, restated so a change to the enforced table is noticed
const TABLE: Record<string, [minimumRole: 'member' | 'admin', servicePrincipal: boolean, internalOnly: boolean]> = {
  'workspace.brands.initialize': ['admin', false, false],
  'workspace.brands.create': ['admin', false, false],
  'publishing.drafts.manage': ['member', false, false],
  'developer.api_keys.manage': ['admin', false, false],
  'developer.oauth_apps.manage': ['admin', false, false],
  'developer.oauth_grants.manage': ['admin', false, false],
  'developer.oauth_tokens.exchange': ['admin', false, false],
  'publishing.jobs.read': ['member', false, false],
  'publishing.batches.manage': ['admin', false, false],
  'publishing.queue.reconcile': ['admin', false, false],
  'publishing.urls.reconcile': ['admin', false, false],
  'publishing.results.manage': ['admin', false, false],
  'analytics.provider_sync.manage': ['admin', false, false],
  'engagement.comments.manage': ['admin', false, false],
  'webhooks.endpoints.manage': ['admin', false, false],
  'webhooks.deliveries.manage': ['admin', false, false],
  'automations.sources.manage': ['admin', false, false],
  'automations.scheduler.enqueue': ['admin', true, false],
  'admin.db.migrate': ['admin', true, true],
  'admin.provider.webhook.provision': ['admin', true, true],
};

describe('dashboard permission policies', () => {
  let ctx: TestContext;
  let probe: FastifyInstance;
  const sessions: Record<string, string> = {};

  before(async () => {
    ctx = await createTestContext({ env: AUTH_ENV });
    const org = await ctx.createOrganization({ name: 'Policies' });
    for (const role of ['member', 'admin', 'owner'] as const)
      sessions[role] = await signIn(ctx, (await addMember(ctx, org.organizationId, role)).email);
    // a probe route per policy on an app that uses the real enforcement against the real database
    probe = Fastify();
    errorHandling().install(probe);
    const sessionsOfRoot = ctx.root.areas.identity.read.sessions;
    installDashboardAuth(
      probe,
      ctx.deps,
      dashboardPolicies((token) => sessionsOfRoot.resolve(token)),
    );
    for (const id of SPEC_POLICY_IDS) probe.post(`/probe/${id}`, { config: requirePolicy(id) }, async (request) => actorOf(request));
    await probe.ready();
  });
  after(async () => {
    await probe?.close();
    await ctx.close();
  });

  it('the enforced table is the specification table', () => {
    assert.deepEqual([...SPEC_POLICY_IDS].sort(), Object.keys(TABLE).sort());
    for (const id of SPEC_POLICY_IDS) {
      const r = POLICIES[id];
      assert.deepEqual([r.minimumRole, r.servicePrincipal, r.internalOnly], TABLE[id], id);
    }
  });

  for (const [id, [minimumRole, servicePrincipal, internalOnly]] of Object.entries(TABLE)) {
    it(`${id}: member / admin / owner / principal token / internal token`, async () => {
      const call = (headers: Record<string, string>) => probe.inject({ method: 'POST', url: `/probe/${id}`, headers });
      const asUser = (role: string) => call({ cookie: `service_dashboard_session=${sessions[role]}`, origin: DASHBOARD });
      const expectUser = (role: string) => !internalOnly && (role !== 'member' || minimumRole === 'member');
      for (const role of ['member', 'admin', 'owner']) {
        const res = await asUser(role);
        assert.equal(res.statusCode, expectUser(role) ? 200 : 403, `${id} as ${role}: ${res.body}`);
        if (res.statusCode === 403) assert.equal(res.json().error, 'permission_denied');
        else assert.equal(res.json().role, role);
      }
      // legacy bearer session, Authorization header only
      const bearer = await call({ authorization: `Bearer ${sessions.admin}` });
      assert.equal(bearer.statusCode, internalOnly ? 403 : 200);
      const tokens: Record<string, string>[] = [
        { 'x-service-principal-token': PRINCIPAL_TOKEN },
        { 'x-service-internal-token': INTERNAL_TOKEN },
      ];
      for (const headers of tokens) {
        const res = await call(headers);
        assert.equal(res.statusCode, servicePrincipal ? 200 : 403, `${id} with ${Object.keys(headers)[0]}`);
        if (servicePrincipal) assert.equal(res.json().kind, 'service');
        else assert.equal(res.json().error, 'permission_denied');
        // never from a browser
        const fromBrowser = await call({ ...headers, origin: DASHBOARD });
        assert.equal(fromBrowser.statusCode, 403);
        assert.equal(fromBrowser.json().error, 'permission_denied');
      }
      const wrong = await call({ 'x-service-internal-token': INTERNAL_TOKEN + 'x' });
      assert.equal(wrong.statusCode, 403);
    });
  }

  it('publishing.queue.reconcile on its route: admins and owners sweep, members and service tokens are refused', async () => {
    const call = (headers: Record<string, string>) =>
      ctx.app.inject({ method: 'POST', url: '/v1/internal/publish-queue/reconcile', headers });
    for (const role of ['admin', 'owner']) {
      const ok = await call({ cookie: `service_dashboard_session=${sessions[role]}`, origin: DASHBOARD });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal(ok.json().requeuedCount, 0);
    }
    const refused: Record<string, string>[] = [
      { cookie: `service_dashboard_session=${sessions.member}`, origin: DASHBOARD },
      { 'x-service-internal-token': INTERNAL_TOKEN },
      { 'x-service-principal-token': PRINCIPAL_TOKEN },
    ];
    for (const headers of refused) {
      const res = await call(headers);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error, 'permission_denied');
    }
  });

  it('refuses a cookie session from an unapproved or missing Origin on writes, and no credential with 401', async () => {
    const other = await probe.inject({
      method: 'POST',
      url: '/probe/publishing.jobs.read',
      headers: { cookie: `service_dashboard_session=${sessions.owner}`, origin: 'https://evil.example' },
    });
    assert.equal(other.statusCode, 403);
    assert.equal(other.json().error, 'permission_denied');
    const none = await probe.inject({
      method: 'POST',
      url: '/probe/publishing.jobs.read',
      headers: { cookie: `service_dashboard_session=${sessions.owner}` },
    });
    assert.equal(none.statusCode, 403);
    const anonymous = await probe.inject({ method: 'POST', url: '/probe/publishing.jobs.read' });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().error, 'dashboard_session_required');
  });
});
