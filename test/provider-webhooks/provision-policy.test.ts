import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, addMember, DASHBOARD, INTERNAL_TOKEN, PRINCIPAL_TOKEN, signIn } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const URL_PATH = '/v1/internal/provider-webhooks/provision';
const META_SECRET = 'meta-app-secret-for-tests';
const VERIFY_TOKEN = 'verify-token-for-tests';

describe('provider webhooks: provisioning policy, dry run and signature refusals', () => {
  let ctx: TestContext;
  let sessions: Record<'member' | 'admin', string>;

  before(async () => {
    ctx = await createTestContext({
      env: {
        ...AUTH_ENV,
        SERVICE_FACEBOOK_PAGE_CLIENT_ID: 'meta-app-id',
        SERVICE_FACEBOOK_PAGE_CLIENT_SECRET: META_SECRET,
        SERVICE_PROVIDER_WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
        SERVICE_PUBLIC_BASE_URL: 'https://api.example.test',
      },
    });
    const org = await ctx.createOrganization({ name: 'Provision' });
    sessions = {
      member: await signIn(ctx, (await addMember(ctx, org.organizationId, 'member')).email),
      admin: await signIn(ctx, (await addMember(ctx, org.organizationId, 'admin')).email),
    };
  });
  after(() => ctx.close());

  const provision = (headers: Record<string, string>, payload: unknown = {}) =>
    ctx.app.inject({ method: 'POST', url: URL_PATH, headers, payload: payload as object });

  it('admin.provider.webhook.provision: service tokens only, never from a browser; sessions refused', async () => {
    const tokens: Record<string, string>[] = [
      { 'x-service-internal-token': INTERNAL_TOKEN },
      { 'x-service-principal-token': PRINCIPAL_TOKEN },
    ];
    for (const headers of tokens) {
      const ok = await provision(headers);
      assert.equal(ok.statusCode, 200, ok.body);
      const browser = await provision({ ...headers, origin: DASHBOARD });
      assert.equal(browser.statusCode, 403);
      assert.equal(browser.json().error, 'permission_denied');
    }
    for (const role of ['member', 'admin'] as const) {
      const res = await provision({ cookie: `service_dashboard_session=${sessions[role]}`, origin: DASHBOARD });
      assert.equal(res.statusCode, 403, role);
      assert.equal(res.json().error, 'permission_denied');
    }
    const wrong = await provision({ 'x-service-internal-token': `${INTERNAL_TOKEN}x` });
    assert.equal(wrong.statusCode, 403);
    const none = await provision({});
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'internal_token_required');
  });

  it('a dry run (the default) answers per platform what would be done and calls nothing', async () => {
    const res = await provision({ 'x-service-internal-token': INTERNAL_TOKEN });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.mode, 'dry_run');
    const by = Object.fromEntries(body.platforms.map((p: { platform: string }) => [p.platform, p]));
    assert.deepEqual(Object.keys(by).sort(), [
      'facebook_page',
      'instagram_business',
      'instagram_standalone',
      'pinterest',
      'threads',
      'tiktok',
      'x',
      'youtube',
    ]);
    assert.equal(by.facebook_page.outcome, 'would_provision');
    assert.equal(by.facebook_page.callbackUrl, 'https://api.example.test/v1/provider-webhooks/facebook_page');
    assert.match(by.facebook_page.steps[0].request, /^POST https:\/\/graph\.facebook\.com\/v[\d.]+\/meta-app-id\/subscriptions$/);
    assert.equal(by.facebook_page.steps[0].outcome, 'would_call');
    // no credential appears in the answer
    assert.ok(!res.body.includes(META_SECRET) && !res.body.includes(VERIFY_TOKEN));
    assert.equal(by.tiktok.outcome, 'manual');
    assert.equal(by.pinterest.method, 'developer_console');
    assert.equal(by.x.outcome, 'not_configured');
    assert.match(by.x.note, /SERVICE_X_WEBHOOK_APP_BEARER_TOKEN/);
    const only = await provision({ 'x-service-internal-token': INTERNAL_TOKEN }, { platforms: ['youtube'] });
    assert.deepEqual(
      only.json().platforms.map((p: { platform: string }) => p.platform),
      ['youtube'],
    );
    const bad = await provision({ 'x-service-internal-token': INTERNAL_TOKEN }, { platforms: ['myspace'] });
    assert.equal(bad.statusCode, 400);
  });

  it('inbound: unknown platform 404; missing or wrong signature 401; the Meta handshake echoes the challenge', async () => {
    const body = JSON.stringify({ object: 'page', entry: [] });
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: '/v1/provider-webhooks/myspace',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error, 'provider_webhook_not_found');
    const post = (headers: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url: '/v1/provider-webhooks/facebook_page',
        headers: { 'content-type': 'application/json', ...headers },
        payload: body,
      });
    const missing = await post({});
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().error, 'provider_webhook_signature_invalid');
    const wrong = await post({ 'x-hub-signature-256': `sha256=${createHmac('sha256', 'other').update(body).digest('hex')}` });
    assert.equal(wrong.statusCode, 401);
    const good = await post({ 'x-hub-signature-256': `sha256=${createHmac('sha256', META_SECRET).update(body).digest('hex')}` });
    assert.equal(good.statusCode, 200, good.body);
    assert.deepEqual(good.json(), { received: true, duplicate: false, events: 0 });

    const hs = (q: string) => ctx.app.inject({ method: 'GET', url: `/v1/provider-webhooks/facebook_page?${q}` });
    const ok = await hs(`hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=${VERIFY_TOKEN}`);
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.body, '1158201444');
    assert.match(String(ok.headers['content-type']), /^text\/plain/);
    const refused = await hs('hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=nope');
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, 'provider_webhook_verification_failed');
  });
});
