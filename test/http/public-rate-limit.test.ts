import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTestContext, REAL_REDIS_URL, TestClock } from '../support/harness.js';

const HEADERS = [
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

describe('public API rate limit', () => {
  for (const store of ['memory', ...(REAL_REDIS_URL ? ['redis'] : [])]) {
    it(`counts per principal per window and answers 429 with every header (${store})`, async () => {
      const clock = new TestClock(Date.UTC(2026, 0, 1, 12, 0, 10));
      const ctx = await createTestContext({
        clock,
        env: { SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '3', SERVICE_PUBLIC_API_RATE_LIMIT_STORE: store },
      });
      try {
        const a = await ctx.createOrganization();
        const b = await ctx.createOrganization();
        const remaining: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await ctx.app.inject({ url: '/v1/brands', headers: a.auth });
          assert.equal(res.statusCode, 200);
          for (const h of HEADERS) assert.ok(res.headers[h], `${h} missing`);
          remaining.push(String(res.headers['ratelimit-remaining']));
        }
        assert.deepEqual(remaining, ['2', '1', '0']);
        const limited = await ctx.app.inject({ url: '/v1/brands', headers: a.auth });
        assert.equal(limited.statusCode, 429);
        assert.equal(limited.json().error, 'public_api_rate_limited');
        assert.equal(limited.headers['retry-after'], '50');
        assert.equal(limited.headers['ratelimit-reset'], '50');
        assert.equal(limited.headers['x-ratelimit-reset'], String(Date.UTC(2026, 0, 1, 12, 1, 0) / 1000));
        assert.equal(limited.headers['x-ratelimit-remaining'], '0');
        // another principal has its own budget
        assert.equal((await ctx.app.inject({ url: '/v1/brands', headers: b.auth })).statusCode, 200);
        // the next window starts fresh
        clock.advance(50_000);
        const fresh = await ctx.app.inject({ url: '/v1/brands', headers: a.auth });
        assert.equal(fresh.statusCode, 200);
        assert.equal(fresh.headers['ratelimit-remaining'], '2');
      } finally {
        await ctx.close();
      }
    });
  }

  it('SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED=true sends no rate-limit headers and never limits', async () => {
    const ctx = await createTestContext({
      env: { SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '1', SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' },
    });
    try {
      const a = await ctx.createOrganization();
      for (let i = 0; i < 3; i++) {
        const res = await ctx.app.inject({ url: '/v1/brands', headers: a.auth });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['ratelimit-limit'], undefined);
      }
    } finally {
      await ctx.close();
    }
  });

  it('answers the configuration errors of an unsupported store and of redis without REDIS_URL', async () => {
    const bogus = await createTestContext({ redis: false, env: { SERVICE_PUBLIC_API_RATE_LIMIT_STORE: 'memcached' } });
    try {
      const a = await bogus.createOrganization();
      const res = await bogus.app.inject({ url: '/v1/brands', headers: a.auth });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_public_api_rate_limit_store');
    } finally {
      await bogus.close();
    }
    const noRedis = await createTestContext({ redis: false, env: { SERVICE_PUBLIC_API_RATE_LIMIT_STORE: 'redis' } });
    try {
      const a = await noRedis.createOrganization();
      const res = await noRedis.app.inject({ url: '/v1/brands', headers: a.auth });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'redis_url_required');
    } finally {
      await noRedis.close();
    }
  });

  it('two app instances on one Redis share one budget', { skip: REAL_REDIS_URL ? false : 'REDIS_URL not set' }, async () => {
    const prefix = `shared-${Date.now()}`;
    const clock = new TestClock(Date.UTC(2026, 0, 1, 12, 0, 10));
    const one = await createTestContext({ clock, redisPrefix: prefix, env: { SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '4' } });
    const two = await createTestContext({
      clock,
      redisPrefix: prefix,
      database: one.database,
      env: { SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS: '4' },
    });
    try {
      const a = await one.createOrganization();
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) codes.push((await (i % 2 ? two : one).app.inject({ url: '/v1/brands', headers: a.auth })).statusCode);
      assert.deepEqual(codes, [200, 200, 200, 200, 429, 429]);
    } finally {
      await two.close();
      await one.close();
    }
  });
});
