import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, addMember, cookieValue, DASHBOARD, PASSWORD, setCookies, signIn } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('browser sign-in and dashboard sessions', () => {
  let ctx: TestContext;
  let email: string;
  let organizationId: string;

  before(async () => {
    ctx = await createTestContext({ env: { ...AUTH_ENV, SERVICE_PUBLIC_BASE_URL: 'https://api.example.test' } });
    organizationId = (await ctx.createOrganization({ name: 'Sessions' })).organizationId;
    email = (await addMember(ctx, organizationId, 'admin')).email;
  });
  after(() => ctx.close());

  const start = (origin = DASHBOARD, body: object = { email, password: PASSWORD }) =>
    ctx.app.inject({ method: 'POST', url: '/v1/auth/browser-session/start', headers: { origin }, payload: body });
  const exchange = (headers: Record<string, string>, payload: object) =>
    ctx.app.inject({ method: 'POST', url: '/v1/auth/browser-session/exchange', headers, payload });

  it('sets exact cookie attributes and answers the session body', async () => {
    const s = await start();
    assert.equal(s.statusCode, 200);
    assert.deepEqual(Object.keys(s.json()).sort(), ['authorizationCode', 'expiresAt', 'nonce']);
    const [exchangeCookie] = setCookies(s);
    assert.match(
      exchangeCookie!,
      /^service_browser_session_exchange=[A-Za-z0-9_-]{40,}; Path=\/v1\/auth; Max-Age=60; HttpOnly; SameSite=Lax; Secure$/,
    );
    const binding = cookieValue(setCookies(s), 'service_browser_session_exchange')!;
    const ex = await exchange(
      { origin: DASHBOARD, cookie: `service_browser_session_exchange=${binding}` },
      { authorizationCode: s.json().authorizationCode, nonce: s.json().nonce },
    );
    assert.equal(ex.statusCode, 200, ex.body);
    const body = ex.json();
    assert.equal(body.organizationId, organizationId);
    assert.equal(body.role, 'admin');
    assert.equal(body.user.email, email);
    const lines = setCookies(ex);
    assert.ok(lines.includes('service_browser_session_exchange=; Path=/v1/auth; Max-Age=0; HttpOnly; SameSite=Lax; Secure'));
    const session = lines.find((l) => l.startsWith('service_dashboard_session='))!;
    assert.match(session, /^service_dashboard_session=sds_[A-Za-z0-9_-]+; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/);
    assert.doesNotMatch(session, /Domain=/i);

    const token = cookieValue(lines, 'service_dashboard_session')!;
    const me = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { cookie: `service_dashboard_session=${token}` } });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().organization.organizationId, organizationId);
    // the session is stored hashed
    const rows = await ctx.database.db.selectFrom('auth_sessions').select('token_hash').execute();
    assert.ok(rows.every((r) => r.token_hash !== token));

    // a replay of the same code is refused, with the same error as any other failure
    const replay = await exchange(
      { origin: DASHBOARD, cookie: `service_browser_session_exchange=${binding}` },
      { authorizationCode: s.json().authorizationCode, nonce: s.json().nonce },
    );
    assert.equal(replay.statusCode, 400);
    assert.equal(replay.json().error, 'browser_session_exchange_failed');
  });

  it('refuses wrong nonce, other origin, missing cookie and expired code alike', async () => {
    const attempts: Array<
      (s: { code: string; nonce: string; binding: string }) => Promise<{ statusCode: number; json(): { error: string } }>
    > = [
      (s) =>
        exchange(
          { origin: DASHBOARD, cookie: `service_browser_session_exchange=${s.binding}` },
          { authorizationCode: s.code, nonce: 'wrong' },
        ),
      (s) =>
        exchange(
          { origin: 'https://evil.example', cookie: `service_browser_session_exchange=${s.binding}` },
          { authorizationCode: s.code, nonce: s.nonce },
        ),
      (s) => exchange({ origin: DASHBOARD }, { authorizationCode: s.code, nonce: s.nonce }),
      async (s) => {
        ctx.clock.advance(61_000);
        return exchange(
          { origin: DASHBOARD, cookie: `service_browser_session_exchange=${s.binding}` },
          { authorizationCode: s.code, nonce: s.nonce },
        );
      },
    ];
    for (const attempt of attempts) {
      const s = await start();
      const res = await attempt({
        code: s.json().authorizationCode,
        nonce: s.json().nonce,
        binding: cookieValue(setCookies(s), 'service_browser_session_exchange')!,
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'browser_session_exchange_failed');
    }
  });

  it('refuses start from an unapproved origin, a wrong password (401), and logout revokes the session', async () => {
    assert.equal((await start('https://evil.example')).statusCode, 403);
    const bad = await start(DASHBOARD, { email, password: 'nope' });
    assert.equal(bad.statusCode, 401);
    assert.equal(bad.json().error, 'sign_in_failed');
    const token = await signIn(ctx, email);
    const out = await ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { origin: DASHBOARD, cookie: `service_dashboard_session=${token}` },
    });
    assert.equal(out.statusCode, 204);
    assert.ok(setCookies(out).some((l) => l.startsWith('service_dashboard_session=;') && l.includes('Max-Age=0')));
    const me = await ctx.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${token}` } });
    assert.equal(me.statusCode, 401);
  });

  it('limits failed attempts per account and address with 429', async () => {
    const victim = (await addMember(ctx, organizationId, 'member')).email;
    let last = 0;
    for (let i = 0; i < 11; i++) last = (await start(DASHBOARD, { email: victim, password: 'wrong' })).statusCode;
    assert.equal(last, 429);
  });
});
