import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IdentityService } from '../../src/modules/identity/identity.service.js';
import { createTestContext, REAL_REDIS_URL, type TestContext } from '../support/harness.js';

describe('public API authentication (spec rules 1-6)', () => {
  let ctx: TestContext;
  let org: Awaited<ReturnType<TestContext['createOrganization']>>;
  before(async () => {
    // memory counters: the negative-cache expiry below is driven by the test clock
    ctx = await createTestContext({ redis: false });
    org = await ctx.createOrganization();
  });
  after(() => ctx.close());

  const get = (headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url: '/v1/brands', headers });

  it('401 public_api_token_required without a bearer credential', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic dXNlcjpwdw==' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer a b' },
    ] as Record<string, string>[]) {
      const res = await get(headers);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error, 'public_api_token_required');
      assert.equal(res.json().requestId, res.headers['x-request-id']);
    }
  });

  it('401 public_api_token_forbidden for unknown and malformed keys', async () => {
    for (const token of ['sk_AAAAAAAA_nottherightsecretatallxxxxx', 'garbage', `${org.apiKey}x`]) {
      const res = await get({ authorization: `Bearer ${token}` });
      assert.equal(res.statusCode, 401, token);
      assert.equal(res.json().error, 'public_api_token_forbidden');
    }
  });

  it('401 public_api_token_forbidden when the key lacks the route scope', async () => {
    const limited = await new IdentityService(ctx.database.db).createApiKeyFor({
      organizationId: org.organizationId,
      scopes: ['media:read'],
    });
    const res = await get({ authorization: `Bearer ${limited.apiKey}` });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'public_api_token_forbidden');
    assert.match(res.json().message, /brands:read/);
  });

  it('caches rejected credentials for 30 seconds, then looks again', async () => {
    const identity = new IdentityService(ctx.database.db);
    const key = await identity.createApiKeyFor({ organizationId: org.organizationId, scopes: ['brands:read'] });
    await ctx.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', key.apiKeyId).execute();
    const auth = { authorization: `Bearer ${key.apiKey}` };
    assert.equal((await get(auth)).statusCode, 401);
    // the key becomes valid again in the database, but the rejection is cached
    await ctx.database.db.updateTable('api_keys').set({ revoked_at: null }).where('id', '=', key.apiKeyId).execute();
    assert.equal((await get(auth)).statusCode, 401);
    ctx.clock.advance(29_000);
    assert.equal((await get(auth)).statusCode, 401);
    ctx.clock.advance(2_000);
    assert.equal((await get(auth)).statusCode, 200);
  });

  it('remembers an accepted key for 5 seconds: a revocation in the database applies once they pass; the scope is checked on every use', async () => {
    const identity = new IdentityService(ctx.database.db);
    const key = await identity.createApiKeyFor({ organizationId: org.organizationId, scopes: ['brands:read'] });
    const auth = { authorization: `Bearer ${key.apiKey}` };
    assert.equal((await get(auth)).statusCode, 200);
    await ctx.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', key.apiKeyId).execute();
    // answered from the process's memory, with the rate limit counted as on the first use
    const remembered = await get(auth);
    assert.equal(remembered.statusCode, 200);
    assert.equal(Number(remembered.headers['x-ratelimit-remaining']), Number(remembered.headers['x-ratelimit-limit']) - 2);
    ctx.clock.advance(5_001);
    assert.equal((await get(auth)).json().error, 'public_api_token_forbidden');

    const limited = await identity.createApiKeyFor({ organizationId: org.organizationId, scopes: ['media:read'] });
    // accepted (media:read), then remembered: the remembered key still lacks brands:read
    const media = await ctx.app.inject({ url: '/v1/media', headers: { authorization: `Bearer ${limited.apiKey}` } });
    assert.notEqual(media.statusCode, 401);
    const refused = await get({ authorization: `Bearer ${limited.apiKey}` });
    assert.equal(refused.statusCode, 401);
    assert.match(refused.json().message, /brands:read/);
  });

  it('revoked keys are refused', async () => {
    const identity = new IdentityService(ctx.database.db);
    const key = await identity.createApiKeyFor({ organizationId: org.organizationId, scopes: ['brands:read'] });
    await ctx.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', key.apiKeyId).execute();
    assert.equal((await get({ authorization: `Bearer ${key.apiKey}` })).json().error, 'public_api_token_forbidden');
  });
});

describe('negative cache switched off', () => {
  it('SERVICE_PUBLIC_API_NEGATIVE_CACHE_DISABLED=true re-checks every rejected credential', async () => {
    const ctx = await createTestContext({ redis: false, env: { SERVICE_PUBLIC_API_NEGATIVE_CACHE_DISABLED: 'true' } });
    try {
      const org = await ctx.createOrganization();
      const key = await new IdentityService(ctx.database.db).createApiKeyFor({
        organizationId: org.organizationId,
        scopes: ['brands:read'],
      });
      await ctx.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', key.apiKeyId).execute();
      const auth = { authorization: `Bearer ${key.apiKey}` };
      assert.equal((await ctx.app.inject({ url: '/v1/brands', headers: auth })).statusCode, 401);
      await ctx.database.db.updateTable('api_keys').set({ revoked_at: null }).where('id', '=', key.apiKeyId).execute();
      assert.equal((await ctx.app.inject({ url: '/v1/brands', headers: auth })).statusCode, 200);
    } finally {
      await ctx.close();
    }
  });
});

describe('negative cache in Redis', { skip: REAL_REDIS_URL ? false : 'REDIS_URL not set' }, () => {
  it('stores the rejection in Redis with a 30-second expiry, shared by every process', async () => {
    const ctx = await createTestContext({ redisPrefix: `neg-${Date.now()}` });
    try {
      const res = await ctx.app.inject({
        url: '/v1/brands',
        headers: { authorization: 'Bearer sk_ZZZZZZZZ_unknownunknownunknownunknown' },
      });
      assert.equal(res.statusCode, 401);
      const redis = (ctx.deps.counters.redis as unknown as { redis: import('ioredis').Redis }).redis;
      const keys = await redis.keys(`test:neg-*auth:neg:*`);
      assert.equal(keys.length, 1);
      const ttl = await redis.pttl(keys[0]!);
      assert.ok(ttl > 25_000 && ttl <= 30_000, `ttl ${ttl}`);
    } finally {
      await ctx.close();
    }
  });
});

describe('public API switches', () => {
  it('403 public_api_disabled when SERVICE_PUBLIC_API_ENABLED=false (before any credential check)', async () => {
    const ctx = await createTestContext({ env: { SERVICE_PUBLIC_API_ENABLED: 'false' } });
    try {
      const org = await ctx.createOrganization();
      for (const headers of [{}, org.auth]) {
        const res = await ctx.app.inject({ url: '/v1/brands', headers });
        assert.equal(res.statusCode, 403);
        assert.equal(res.json().error, 'public_api_disabled');
      }
      assert.equal((await ctx.app.inject({ url: '/v1/health/live' })).statusCode, 200);
    } finally {
      await ctx.close();
    }
  });

  it('421 request_origin_not_allowed when the effective origin is not the configured one', async () => {
    const ctx = await createTestContext({
      env: { SERVICE_PUBLIC_API_ORIGIN: 'https://api.example.test, http://localhost:8080', SERVICE_TRUST_PROXY: 'true' },
    });
    try {
      const org = await ctx.createOrganization();
      const ok = await ctx.app.inject({
        url: '/v1/brands',
        headers: { ...org.auth, host: 'api.example.test', 'x-forwarded-proto': 'https' },
      });
      assert.equal(ok.statusCode, 200);
      const ok2 = await ctx.app.inject({ url: '/v1/brands', headers: { ...org.auth, host: 'localhost:8080' } });
      assert.equal(ok2.statusCode, 200);
      for (const headers of [
        { host: 'evil.test' },
        { host: 'api.example.test', 'x-forwarded-proto': 'http' },
        { host: 'api.example.test:444', 'x-forwarded-proto': 'https' },
      ]) {
        const res = await ctx.app.inject({ url: '/v1/brands', headers: { ...org.auth, ...headers } });
        assert.equal(res.statusCode, 421, JSON.stringify(headers));
        assert.equal(res.json().error, 'request_origin_not_allowed');
      }
    } finally {
      await ctx.close();
    }
  });
});
