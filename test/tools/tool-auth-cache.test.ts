/**
 * The tool API caches keys and tiers; these tests hold it to "a change applies to the next request" of the
 * process that made it, and to the other servers' requests once the database's notification reaches them
 * (the CLI through the embedded socket is in tool-auth-cache-cli.test.ts), and check that limits stay
 * exact under concurrency.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, REAL_DATABASE_URL, TestClock, type TestContext } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { concurrentClients, createToolUser, errorCode, post, QR_PATH, toolKeys, UTM_PATH, urls, utmBody } from './tool-http.support.js';

const svg = { text: 'hi', format: 'svg' };

describe('tool API auth cache and limits under concurrency', () => {
  let ctx: TestContext;
  const clock = new TestClock(Date.parse('2026-05-04T10:00:05.000Z'));

  before(async () => {
    ctx = await createTestContext({ clock });
  });
  after(() => ctx.close());

  it('a revoked key is refused on the very next request after it was served', async () => {
    const user = await createToolUser(ctx, 'pro');
    assert.equal((await post(ctx, QR_PATH, user.auth, svg)).statusCode, 200);
    assert.equal((await post(ctx, QR_PATH, user.auth, svg)).statusCode, 200);
    await toolKeys(ctx).revokeKey(user.apiKeyId, clock.now());
    const res = await post(ctx, QR_PATH, user.auth, svg);
    assert.equal(res.statusCode, 401);
    assert.equal(errorCode(res), 'invalid_api_key');
  });

  it('a tier change applies to the next request after the key was served from the cache', async () => {
    const user = await createToolUser(ctx, 'pro');
    assert.equal((await post(ctx, QR_PATH, user.auth, svg)).headers['x-quota-limit'], '500');
    assert.equal((await post(ctx, QR_PATH, user.auth, svg)).headers['x-quota-limit'], '500');
    const service = toolKeys(ctx);
    await service.setTier({ email: user.email, tier: 'max' }, clock.now());
    assert.equal((await post(ctx, QR_PATH, user.auth, svg)).headers['x-quota-limit'], '5000');
    await service.setTier({ email: user.email, tier: 'basic' }, clock.now());
    assert.equal(errorCode(await post(ctx, QR_PATH, user.auth, svg)), 'membership_required');
  });

  it('daily quota is exact under concurrency: 50 concurrent requests, room for 20, exactly 20 succeed', async () => {
    clock.set(Date.parse('2026-05-04T11:00:05.000Z'));
    const user = await createToolUser(ctx, 'pro');
    // Pro: 1,000 links a day, 60 requests a minute; 50 requests of 50 links each
    const answers = await concurrentClients(() => post(ctx, UTM_PATH, user.auth, utmBody(urls(50))), 50);
    const ok = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode === 429);
    assert.equal(ok.length, 20);
    assert.equal(refused.length, 30);
    for (const r of refused) assert.equal(errorCode(r), 'quota_exceeded');
    assert.deepEqual(
      ok.map((r) => r.json().quota.remaining).sort((a: number, b: number) => a - b),
      Array.from({ length: 20 }, (_, i) => i * 50),
    );
  });

  it('minute limit is exact under concurrency: 80 concurrent requests, limit 60, exactly 60 succeed', async () => {
    clock.set(Date.parse('2026-05-04T12:00:05.000Z'));
    const user = await createToolUser(ctx, 'pro');
    const answers = await concurrentClients(() => post(ctx, QR_PATH, user.auth, svg), 80);
    assert.equal(answers.filter((r) => r.statusCode === 200).length, 60);
    const limited = answers.filter((r) => r.statusCode === 429);
    assert.equal(limited.length, 20);
    for (const r of limited) assert.equal(errorCode(r), 'rate_limited');
  });
});

const postgresSkip = REAL_DATABASE_URL ? false : 'DATABASE_URL is not set: two servers share a database on PostgreSQL only';

describe("two servers on one PostgreSQL database: the key cache learns of the other's changes", { skip: postgresSkip }, () => {
  let first: TestContext;
  let second: TestContext;
  const clock = new TestClock(Date.parse('2026-05-06T08:00:10.000Z'));

  before(async () => {
    // no Redis: the servers share nothing but the database
    first = await createTestContext({ clock, redis: false });
    second = await createTestContext({ clock, redis: false, database: first.database });
    // each server listens on its own connection once its routes are up
    for (const ctx of [first, second]) await waitFor('the key change listener', async () => ctx.root.areas.tools.keysListening());
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  /** the second server's answer once it shows `expected` (the notification is a database round trip away) */
  const onSecond = (user: { auth: Record<string, string> }, expected: (res: Awaited<ReturnType<typeof post>>) => boolean) =>
    waitFor(
      'the change on the other server',
      async () => {
        const res = await post(second, QR_PATH, user.auth, svg);
        return expected(res) && res;
      },
      2_000,
      5,
    );

  it('a tier change and a revocation through one server apply on the other within a round trip', async () => {
    const user = await createToolUser(first, 'max');
    assert.equal((await post(second, QR_PATH, user.auth, svg)).headers['x-quota-limit'], '5000');
    await toolKeys(first).setTier({ email: user.email, tier: 'pro' }, clock.now());
    await onSecond(user, (res) => res.headers['x-quota-limit'] === '500');
    await toolKeys(first).revokeKey(user.apiKeyId, clock.now());
    await onSecond(user, (res) => res.statusCode === 401 && errorCode(res) === 'invalid_api_key');
  });

  it('serves keys from its cache without Redis: a change made by hand in SQL (no notification) shows after the entry expires', async () => {
    const user = await createToolUser(first, 'max');
    assert.equal((await post(second, QR_PATH, user.auth, svg)).statusCode, 200);
    await sql`update tool_api_keys set revoked_at = now() where id = ${user.apiKeyId}`.execute(first.database.db);
    assert.equal((await post(second, QR_PATH, user.auth, svg)).statusCode, 200, 'served from the cache (no database read)');
    clock.advance(61_000);
    assert.equal(errorCode(await post(second, QR_PATH, user.auth, svg)), 'invalid_api_key');
  });

  it('with its listener down it reads the database on every request, and caches again once it listens', async () => {
    const user = await createToolUser(first, 'max');
    assert.equal((await post(second, QR_PATH, user.auth, svg)).statusCode, 200);
    // every listener of the database loses its connection (as in a failover)
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'service-api listener' and datname = current_database()`.execute(
      first.database.db,
    );
    await waitFor('the listener to notice', async () => !second.root.areas.tools.keysListening(), 2_000, 5);
    // a change made while no notification can arrive: refused at once all the same
    await sql`update tool_api_keys set revoked_at = now() where id = ${user.apiKeyId}`.execute(first.database.db);
    assert.equal(errorCode(await post(second, QR_PATH, user.auth, svg)), 'invalid_api_key');
    await waitFor('the listener to listen again', async () => second.root.areas.tools.keysListening(), 5_000);
  });
});
