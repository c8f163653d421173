/**
 * Route schemas are compiled on first use (src/http/lazy-schemas.ts): a first request is validated and
 * serialized as if they had been compiled at start, and the server's background pass compiles every other
 * schema without a failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('route schemas compiled on first use', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it('validates, coerces and serializes on the first request of a route', async () => {
    const org = await ctx.createOrganization();
    const { brandId } = await ctx.createBrand(org.organizationId, 'First');
    // a body of the wrong shape, a query value converted from text, a bad query value and a malformed path id
    const bad = await ctx.app.inject({ method: 'POST', url: '/v1/publish/plans/preview', headers: org.auth, payload: { brandId: 42 } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.ok(bad.json().fields?.length > 0, bad.body);
    const list = await ctx.app.inject({ method: 'GET', url: '/v1/brands?limit=1', headers: org.auth });
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(
      list.json().data.map((b: { brandId: string }) => b.brandId),
      [brandId],
    );
    const limitTooHigh = await ctx.app.inject({ method: 'GET', url: '/v1/brands?limit=1000', headers: org.auth });
    assert.equal(limitTooHigh.statusCode, 400, limitTooHigh.body);
    assert.equal(limitTooHigh.json().fields?.[0]?.message, 'must be <= 100');
    const malformed = await ctx.app.inject({ method: 'GET', url: '/v1/brands/abc', headers: org.auth });
    assert.ok([400, 404].includes(malformed.statusCode), malformed.body);
  });

  it('compiles every remaining schema of every route without a failure', async () => {
    const failures = await ctx.app.compileRemainingSchemas();
    assert.deepEqual(
      failures.map((f) => `${f.route}: ${f.error.message}`),
      [],
    );
    const doc = await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(doc.statusCode, 200);
  });
});
