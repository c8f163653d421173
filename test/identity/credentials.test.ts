import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH_ENV, sessionHeaders } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

describe('developer credentials (dashboard)', () => {
  let ctx: TestContext;
  let admin: Record<string, string>;
  let member: Record<string, string>;
  let otherAdmin: Record<string, string>;

  before(async () => {
    ctx = await createTestContext({ env: AUTH_ENV });
    const org = await ctx.createOrganization({ name: 'Credentials' });
    const other = await ctx.createOrganization({ name: 'Other' });
    admin = await sessionHeaders(ctx, org.organizationId, 'admin');
    member = await sessionHeaders(ctx, org.organizationId, 'member');
    otherAdmin = await sessionHeaders(ctx, other.organizationId, 'admin');
  });
  after(() => ctx.close());

  it('API keys: create shows the secret once, list never does, the key works until revoked', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: admin,
      payload: { name: 'ci', scopes: ['brands:read'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { apiKey, secret } = created.json();
    assert.match(secret, /^sk_/);
    assert.deepEqual(apiKey.scopes, ['brands:read']);
    assert.equal(created.headers['cache-control'], 'no-store');

    const list = await ctx.app.inject({ method: 'GET', url: '/v1/api-keys', headers: admin });
    assert.equal(list.statusCode, 200);
    assert.ok(list.json().data.some((k: { apiKeyId: string }) => k.apiKeyId === apiKey.apiKeyId));
    assert.ok(!list.body.includes(secret));

    const brands = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${secret}` } });
    assert.equal(brands.statusCode, 200);
    const forbiddenScope = await ctx.app.inject({ method: 'GET', url: '/v1/media', headers: { authorization: `Bearer ${secret}` } });
    assert.equal(forbiddenScope.statusCode, 401);

    // another organization cannot see or revoke it
    const foreign = await ctx.app.inject({ method: 'DELETE', url: `/v1/api-keys/${apiKey.apiKeyId}`, headers: otherAdmin });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'api_key_not_found');

    const revoked = await ctx.app.inject({ method: 'DELETE', url: `/v1/api-keys/${apiKey.apiKeyId}`, headers: admin });
    assert.equal(revoked.statusCode, 204);
    const after = await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: { authorization: `Bearer ${secret}` } });
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().error, 'public_api_token_forbidden');
  });

  it('refuses members, anonymous callers and malformed ids', async () => {
    const asMember = await ctx.app.inject({ method: 'GET', url: '/v1/api-keys', headers: member });
    assert.equal(asMember.statusCode, 403);
    assert.equal(asMember.json().error, 'permission_denied');
    const anonymous = await ctx.app.inject({ method: 'GET', url: '/v1/oauth/apps' });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().error, 'dashboard_session_required');
    const malformed = await ctx.app.inject({ method: 'DELETE', url: '/v1/api-keys/nope', headers: admin });
    assert.equal(malformed.statusCode, 400);
    const badScope = await ctx.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: admin,
      payload: { name: 'x', scopes: ['root'] },
    });
    assert.equal(badScope.statusCode, 400);
  });

  it('OAuth apps: create (secret once, stored hashed), list, update, rotate, delete', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/apps',
      headers: admin,
      payload: { name: 'Scheduler', redirectUris: ['https://client.example/cb'], scopes: ['brands:read'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { oauthApp, clientSecret } = created.json();
    assert.match(oauthApp.clientId, /^client_/);
    assert.equal(oauthApp.clientSecretSource, 'stored_hash');
    assert.match(clientSecret, /^ocs_/);
    const row = await ctx.database.db
      .selectFrom('oauth_apps')
      .select('client_secret_hash')
      .where('id', '=', oauthApp.oauthAppId)
      .executeTakeFirstOrThrow();
    assert.notEqual(row.client_secret_hash, clientSecret);

    const list = await ctx.app.inject({ method: 'GET', url: '/v1/oauth/apps', headers: admin });
    assert.equal(list.json().data.length, 1);
    assert.ok(!list.body.includes(clientSecret));

    const renamed = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/oauth/apps/${oauthApp.oauthAppId}`,
      headers: admin,
      payload: { name: 'Renamed' },
    });
    assert.equal(renamed.statusCode, 200);
    assert.equal(renamed.json().oauthApp.name, 'Renamed');
    assert.equal(renamed.json().clientSecret, null);
    const rotated = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/oauth/apps/${oauthApp.oauthAppId}`,
      headers: admin,
      payload: { rotateSecret: true },
    });
    assert.match(rotated.json().clientSecret, /^ocs_/);
    assert.notEqual(rotated.json().clientSecret, clientSecret);

    const badUri = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/apps',
      headers: admin,
      payload: { name: 'x', redirectUris: ['http://client.example/cb'], scopes: ['brands:read'] },
    });
    assert.equal(badUri.statusCode, 400);
    assert.equal(badUri.json().error, 'invalid_credential_request');
    assert.deepEqual(badUri.json().fields[0].path, ['redirectUris', '0']);

    const foreign = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/oauth/apps/${oauthApp.oauthAppId}`,
      headers: otherAdmin,
      payload: { name: 'x' },
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'oauth_app_not_found');

    const deleted = await ctx.app.inject({ method: 'DELETE', url: `/v1/oauth/apps/${oauthApp.oauthAppId}`, headers: admin });
    assert.equal(deleted.statusCode, 204);
    const gone = await ctx.app.inject({ method: 'DELETE', url: `/v1/oauth/apps/${oauthApp.oauthAppId}`, headers: admin });
    assert.equal(gone.statusCode, 404);
  });

  it('workspace: admins create brands and products; members cannot; another organization gets 404', async () => {
    const brand = await ctx.app.inject({
      method: 'POST',
      url: '/v1/brands',
      headers: admin,
      payload: { name: 'Acme Shoes', timezone: 'Europe/Berlin' },
    });
    assert.equal(brand.statusCode, 201, brand.body);
    assert.equal(brand.json().slug, 'acme-shoes');
    const brandId = brand.json().brandId;
    const product = await ctx.app.inject({
      method: 'POST',
      url: `/v1/brands/${brandId}/products`,
      headers: admin,
      payload: { name: 'Runner', productUrl: 'https://acme.example/runner' },
    });
    assert.equal(product.statusCode, 201, product.body);
    assert.equal(product.json().brandId, brandId);
    const asMember = await ctx.app.inject({ method: 'POST', url: '/v1/brands', headers: member, payload: { name: 'Nope' } });
    assert.equal(asMember.statusCode, 403);
    const foreign = await ctx.app.inject({
      method: 'POST',
      url: `/v1/brands/${brandId}/products`,
      headers: otherAdmin,
      payload: { name: 'x' },
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'brand_not_found');

    // Rules the service checks answer the route's own code and name the field.
    const sameSlug = await ctx.app.inject({ method: 'POST', url: '/v1/brands', headers: admin, payload: { name: 'Acme Shoes' } });
    assert.equal(sameSlug.statusCode, 400);
    assert.equal(sameSlug.json().error, 'invalid_public_brand_request');
    assert.deepEqual(sameSlug.json().fields[0].path, ['slug']);
    const badZone = await ctx.app.inject({
      method: 'POST',
      url: '/v1/brands',
      headers: admin,
      payload: { name: 'Z', timezone: 'Mars/Base' },
    });
    assert.equal(badZone.json().error, 'invalid_public_brand_request');
    const pastKey = await ctx.app.inject({
      method: 'POST',
      url: '/v1/api-keys',
      headers: admin,
      payload: { name: 'old', expiresAt: '2001-01-01T00:00:00Z' },
    });
    assert.equal(pastKey.statusCode, 400);
    assert.equal(pastKey.json().error, 'invalid_credential_request');
  });

  it('grants: list is empty and revoking an unknown grant is 404', async () => {
    const list = await ctx.app.inject({ method: 'GET', url: '/v1/oauth/grants', headers: admin });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().data, []);
    const missing = await ctx.app.inject({ method: 'DELETE', url: '/v1/oauth/grants/oag_01HZZZZZZZZZZZZZZZZZZZZZZZ', headers: admin });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error, 'oauth_grant_not_found');
  });
});
