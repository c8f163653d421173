/**
 * Route schemas are compiled on first use (src/http/lazy-schemas.ts): a first request is validated and
 * serialized as if they had been compiled at start, and the server's background pass compiles every other
 * schema without a failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { LazySchemas } from '../../src/http/lazy-schemas.js';
import { AJV_CUSTOM_OPTIONS, partAwareValidatorBuilder } from '../../src/http/validator.js';
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

describe('a schema repeated across routes is compiled once', () => {
  it('shares the compiled function between routes with the same schema text, but not across request parts', async () => {
    const schemas = new LazySchemas();
    const app = Fastify({
      schemaController: {
        compilersFactory: {
          buildValidator: schemas.validators(partAwareValidatorBuilder()) as never,
          buildSerializer: schemas.serializers() as never,
        },
      },
      ajv: { customOptions: { ...AJV_CUSTOM_OPTIONS } },
    });
    after(() => app.close());
    app.addSchema({ $id: 'Shared', type: 'object', properties: { n: { type: 'number' } } });
    // a union: fast-json-stringify gives such a serializer an ajv instance of its own
    const answer = () => ({ type: 'object', properties: { n: { anyOf: [{ type: 'number' }, { type: 'null' }] } } });
    const input = () => ({ type: 'object', properties: { n: { type: 'number' } }, required: ['n'] });
    for (let i = 0; i < 20; i++) {
      // a fresh but equal object per route, as route definitions make them
      app.get(`/q${i}`, { schema: { querystring: input(), response: { 200: answer(), 400: { $ref: 'Shared#' } } } }, async (req) => ({
        n: (req.query as { n: number }).n,
      }));
      app.post(`/b${i}`, { schema: { body: input(), response: { 200: answer(), 400: { $ref: 'Shared#' } } } }, async (req) => ({
        n: (req.body as { n: number }).n,
      }));
    }
    await app.ready();
    assert.deepEqual(await schemas.compileRemaining(), []);
    // querystring and body validators differ (conversion), one 200 serializer, one 400 serializer
    assert.equal(schemas.compiledCount, 4);
    // the query string's "7" is converted; the body's "7" is not a number
    const query = await app.inject({ method: 'GET', url: '/q3?n=7' });
    assert.equal(query.statusCode, 200, query.body);
    assert.deepEqual(query.json(), { n: 7 });
    const text = await app.inject({ method: 'POST', url: '/b5', payload: { n: '7' } });
    assert.equal(text.statusCode, 400, text.body);
    const number = await app.inject({ method: 'POST', url: '/b5', payload: { n: 7 } });
    assert.deepEqual(number.json(), { n: 7 });
  });
});
