/**
 * Sign-in limits: an attacker guessing at an account from their own address cannot lock the owner out
 * (failures count per account and address together); a distributed guess meets a much higher
 * per-account limit; every attempt still counts per address; a success gives its failures back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, addMember, DASHBOARD, PASSWORD } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const ATTACKER = '203.0.113.66';
const OWNER = '198.51.100.7';

describe('sign-in limits', () => {
  let ctx: TestContext;
  let organizationId: string;

  before(async () => {
    ctx = await createTestContext({
      env: {
        ...AUTH_ENV,
        SERVICE_SIGN_IN_MAX_ATTEMPTS_PER_ADDRESS: '40',
        SERVICE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_ADDRESS: '10',
        SERVICE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT: '25',
      },
    });
    organizationId = (await ctx.createOrganization({ name: 'Limits' })).organizationId;
  });
  after(() => ctx.close());

  const start = (email: string, password: string, remoteAddress: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/auth/browser-session/start',
      headers: { origin: DASHBOARD },
      remoteAddress,
      payload: { email, password },
    });

  it('refuses an attacker after 10 failures from their address while the owner still signs in from theirs', async () => {
    const { email } = await addMember(ctx, organizationId, 'owner');
    for (let i = 0; i < 10; i++) assert.equal((await start(email, `wrong-${i}`, ATTACKER)).statusCode, 401);
    const refused = await start(email, PASSWORD, ATTACKER);
    assert.equal(refused.statusCode, 429, 'the pair is limited, even with the right password');
    assert.equal(refused.json().error, 'public_api_rate_limited');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await start(email, PASSWORD, OWNER)).statusCode, 200, 'the owner is not locked out');
    ctx.clock.advance(15 * 60_000);
    assert.equal((await start(email, PASSWORD, ATTACKER)).statusCode, 200, 'the window ends');
  });

  it('limits a guess spread over many addresses at the higher per-account threshold', async () => {
    ctx.clock.advance(15 * 60_000);
    const { email } = await addMember(ctx, organizationId, 'member');
    for (let i = 0; i < 25; i++) assert.equal((await start(email, 'wrong', `192.0.2.${i + 1}`)).statusCode, 401, `attempt ${i}`);
    const res = await start(email, 'wrong', '192.0.2.200');
    assert.equal(res.statusCode, 429);
    assert.equal(res.json().error, 'public_api_rate_limited');
  });

  it('gives failures back on success, so an owner who mistypes is not counted towards a lockout', async () => {
    ctx.clock.advance(15 * 60_000);
    const { email } = await addMember(ctx, organizationId, 'admin');
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9; i++) assert.equal((await start(email, 'typo', OWNER)).statusCode, 401);
      assert.equal((await start(email, PASSWORD, OWNER)).statusCode, 200, `round ${round}`);
    }
  });

  it('counts every attempt per client address, whatever the account (spraying)', async () => {
    ctx.clock.advance(15 * 60_000);
    const sprayer = '203.0.113.99';
    for (let i = 0; i < 40; i++) assert.equal((await start(`nobody-${i}@example.test`, 'Summer2026!', sprayer)).statusCode, 401);
    assert.equal((await start('nobody-x@example.test', 'Summer2026!', sprayer)).statusCode, 429);
  });

  it('counts unknown emails like known ones (no account enumeration through the limit)', async () => {
    ctx.clock.advance(15 * 60_000);
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push((await start('ghost@example.test', 'wrong', ATTACKER)).statusCode);
    assert.deepEqual(codes, [...Array(10).fill(401), 429]);
  });
});
