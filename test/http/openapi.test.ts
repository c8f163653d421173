import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('OpenAPI document', () => {
  let ctx: TestContext;
  let doc: Record<string, any>;
  before(async () => {
    ctx = await createTestContext();
    const res = await ctx.app.inject({ url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
  });
  after(() => ctx.close());

  it('is a valid OpenAPI 3.1.0 document with the interface and error catalog versions', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '0.1.0');
    assert.equal(doc.info['x-error-catalog-version'], '2026-07-26');
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  });

  it('declares the security schemes of the specification', () => {
    const schemes = doc.components.securitySchemes;
    for (const name of [
      'publicBearer',
      'dashboardSession',
      'dashboardSessionCookie',
      'internalServiceToken',
      'servicePrincipalToken',
      'browserSessionExchangeCookie',
    ]) {
      assert.ok(schemes[name], name);
    }
    assert.equal(schemes.internalServiceToken.name, 'x-service-internal-token');
    assert.equal(schemes.dashboardSessionCookie.name, 'service_dashboard_session');
  });

  it('lists every route with an operationId, a tag and its responses; authenticated routes list their errors', () => {
    const operationIds = new Set<string>();
    const routes = ctx.app.registeredRoutes.filter(
      (r) => !r.hidden && r.method !== 'HEAD' && !r.url.startsWith('/v1/docs') && !r.url.startsWith('/sandbox'),
    );
    assert.ok(routes.length >= 5);
    for (const route of routes) {
      const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(op, `${route.method} ${path} missing from the document`);
      assert.ok(op.operationId, `${route.method} ${path} has no operationId`);
      assert.ok(!operationIds.has(op.operationId), `duplicate operationId ${op.operationId}`);
      operationIds.add(op.operationId);
      assert.ok(Array.isArray(op.tags) && op.tags.length > 0, `${path} has no tag`);
      assert.ok(op.responses && Object.keys(op.responses).some((s) => s.startsWith('2') || s === '302'), `${path} has no success response`);
      if (op.security?.some((s: Record<string, unknown>) => 'publicBearer' in s)) {
        assert.ok(op.responses['401'], `${path} does not document 401`);
        assert.ok(op.responses['429'], `${path} does not document 429`);
      }
    }
  });

  it('serves the interactive reference at /v1/docs', async () => {
    const res = await ctx.app.inject({ url: '/v1/docs' });
    assert.ok([200, 302].includes(res.statusCode));
    const page =
      res.statusCode === 302
        ? await ctx.app.inject({
            url: String(res.headers.location).startsWith('/') ? String(res.headers.location) : `/v1/docs/${res.headers.location}`,
          })
        : res;
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger/i);
  });
});
