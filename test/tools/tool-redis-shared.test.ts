import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestContext, REAL_REDIS_URL, TestClock, type TestContext } from '../support/harness.js';
import { concurrentClients, createToolUser, errorCode, HEAVY_QR, post, QR_PATH, UTM_PATH, urls, utmBody } from './tool-http.support.js';

const skip = REAL_REDIS_URL ? false : 'REDIS_URL is not set: the Redis-shared counter test needs a Redis server';

describe('two app instances share one budget through Redis', { skip }, () => {
  let first: TestContext;
  let second: TestContext;
  const clock = new TestClock(Date.parse('2026-06-01T08:00:10.000Z'));

  before(async () => {
    const redisPrefix = randomBytes(6).toString('hex');
    first = await createTestContext({ clock, redisPrefix });
    // the second instance shares the database and the Redis key space, like a second process
    second = await createTestContext({ clock, redisPrefix, database: first.database });
    assert.equal(first.deps.counters.shared.kind, 'redis');
  });
  after(async () => {
    await second?.close();
    await first?.close();
  });

  it('quota and minute limit are shared', async () => {
    const user = await createToolUser(first, 'pro');
    const a = await post(first, UTM_PATH, user.auth, utmBody(urls(100)));
    const b = await post(second, UTM_PATH, user.auth, utmBody(urls(100)));
    assert.equal(a.json().quota.remaining, 900);
    assert.equal(b.json().quota.remaining, 800);
    assert.equal(b.json().rateLimit.remaining, 58);
    for (let i = 0; i < 58; i++) {
      const target = i % 2 === 0 ? first : second;
      assert.equal((await post(target, UTM_PATH, user.auth, utmBody(['mailto:free@example.test']))).statusCode, 200);
    }
    assert.equal(errorCode(await post(first, UTM_PATH, user.auth, utmBody(urls(1)))), 'rate_limited');
    assert.equal(errorCode(await post(second, UTM_PATH, user.auth, utmBody(urls(1)))), 'rate_limited');
  });

  it('50 concurrent requests over both instances with room for 20: exactly 20 succeed', async () => {
    const user = await createToolUser(first, 'pro');
    const answers = await concurrentClients((i) => post(i % 2 ? first : second, UTM_PATH, user.auth, utmBody(urls(50))), 50);
    assert.equal(answers.filter((r) => r.statusCode === 200).length, 20);
    for (const r of answers.filter((r) => r.statusCode !== 200)) assert.equal(errorCode(r), 'quota_exceeded');
  });

  it('one request at a time holds across instances', async () => {
    const user = await createToolUser(first, 'max');
    const [a, b] = await Promise.all([post(first, QR_PATH, user.auth, HEAVY_QR), post(second, QR_PATH, user.auth, HEAVY_QR)]);
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 429]);
    assert.equal(errorCode(a.statusCode === 429 ? a : b), 'concurrency_limited');
  });
});
