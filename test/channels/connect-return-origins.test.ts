/**
 * Where a connect request's returnUrl may point: by default only this service's own origin and the
 * dashboard origins, so the OAuth callback can never be used as an open redirect; extra origins are
 * the operator's (SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

const SERVICE = 'https://api.example.test';
const DASHBOARD = 'https://dash.example.test';

async function contextWith(extra: Record<string, string>): Promise<TestContext> {
  return createTestContext({
    env: {
      SERVICE_X_CLIENT_ID: 'x-client',
      SERVICE_X_CLIENT_SECRET: 'x-secret',
      SERVICE_PUBLIC_BASE_URL: SERVICE,
      SERVICE_DASHBOARD_ORIGINS: DASHBOARD,
      ...extra,
    },
  });
}

const connect = (ctx: TestContext, org: Org, returnUrl: unknown) =>
  ctx.app.inject({ method: 'POST', url: '/v1/channel-accounts/connect-url', headers: org.auth, payload: { platform: 'x', returnUrl } });

describe('connect returnUrl origins (default settings)', () => {
  let ctx: TestContext;
  let org: Org;
  before(async () => {
    ctx = await contextWith({});
    org = await ctx.createOrganization({ name: 'Return' });
  });
  after(() => ctx.close());

  it("accepts the service's own origin and the dashboard origins", async () => {
    for (const url of [`${SERVICE}/done`, `${DASHBOARD}/app/channels?x=1`, `${DASHBOARD.toUpperCase()}/app/channels`]) {
      const res = await connect(ctx, org, url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
  });

  it('refuses every other origin with 400 naming returnUrl, and stores no state', async () => {
    const foreign = [
      'https://evil.test/phish',
      'https://dash.example.test.evil.test/app',
      'https://dash.example.test@evil.test/app',
      'http://dash.example.test/app', // another scheme is another origin
      'https://dash.example.test:8443/app', // another port too
      '//evil.test/phish',
      'javascript:alert(1)',
    ];
    for (const url of foreign) {
      const res = await connect(ctx, org, url);
      assert.equal(res.statusCode, 400, url);
      const body = res.json();
      assert.equal(body.error, 'invalid_public_channel_connect_url_request', url);
      assert.deepEqual(body.fields?.[0]?.path, ['returnUrl'], url);
    }
    const states = await ctx.database.db
      .selectFrom('channel_connect_states')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(states.n), 3, 'only the accepted requests stored a state');
  });
});

describe('connect returnUrl origins (extra origins configured)', () => {
  let ctx: TestContext;
  let org: Org;
  before(async () => {
    ctx = await contextWith({ SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS: 'https://partner.example.test, http://localhost:5173/' });
    org = await ctx.createOrganization({ name: 'Extra' });
  });
  after(() => ctx.close());

  it('keeps the listed extra origins working besides the defaults, and refuses the rest', async () => {
    for (const url of ['https://partner.example.test/back', 'http://localhost:5173/cb', `${DASHBOARD}/app/channels`, `${SERVICE}/x`]) {
      assert.equal((await connect(ctx, org, url)).statusCode, 200, url);
    }
    const res = await connect(ctx, org, 'https://evil.test/phish');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_public_channel_connect_url_request');
  });
});
