import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { publicOrDashboard } from '../../src/http/dashboard-auth.js';
import { installRouteSecurity } from '../../src/http/route-security.js';
import { ErrorResponse, errorResponses } from '../../src/http/shared-schemas.js';

const describe = (schema: unknown, status: number) =>
  ((schema as { response: Record<number, { description?: string }> }).response[status]?.description ?? '').replace(
    /^Error codes: |\.$/g,
    '',
  );

test('a public route gets its security and the credentials refusals from its config', async () => {
  const app = Fastify();
  app.addSchema(ErrorResponse);
  const seen = new Map<string, unknown>();
  installRouteSecurity(app);
  app.addHook('onRoute', (route) => void seen.set(route.url, route.schema));
  app.get(
    '/both',
    {
      config: publicOrDashboard('brands:read', 'publishing.jobs.read'),
      schema: { response: { 200: { type: 'object' }, ...errorResponses('brand_not_found') } },
    },
    async () => ({}),
  );
  app.get('/key', { config: { auth: { scope: 'brands:read' } }, schema: {} }, async () => ({}));
  app.get('/signed', { config: { auth: { scope: 'media:read' } }, schema: { security: [{ publicBearer: [] }, {}] } }, async () => ({}));
  await app.ready();

  const both = seen.get('/both') as { security: unknown };
  assert.deepEqual(both.security, [{ publicBearer: [] }, { dashboardSessionCookie: [] }]);
  assert.equal(describe(both, 401), 'dashboard_session_required, public_api_token_required, public_api_token_forbidden');
  assert.equal(describe(both, 404), 'brand_not_found');
  assert.match(describe(both, 403), /^permission_denied, /);
  const key = seen.get('/key') as { security: unknown };
  assert.deepEqual(key.security, [{ publicBearer: [] }]);
  assert.equal(describe(key, 401), 'public_api_token_required, public_api_token_forbidden');
  assert.deepEqual((seen.get('/signed') as { security: unknown }).security, [{ publicBearer: [] }, {}]);
  await app.close();
});

test('an authenticated route whose error answer is not made by errorResponses fails at registration', async () => {
  const app = Fastify();
  installRouteSecurity(app);
  assert.throws(
    () => app.get('/x', { config: { auth: { scope: 'any' } }, schema: { response: { 404: { type: 'object' } } } }, async () => ({})),
    /GET \/x: the 404 answer of an authenticated route must come from errorResponses/,
  );
  await app.close();
});
