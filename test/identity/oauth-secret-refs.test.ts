/**
 * OAuth client secrets: a tenant cannot name a server setting or environment variable as its app's
 * secret (the service generates secrets, stores their hashes and compares digests at the token
 * endpoint); an operator reference (the CLI's) resolves only to an entry of
 * SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS; the migration removes the references tenants stored before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CredentialsService } from '../../src/modules/identity/credentials.service.js';
import { clientSecretRefDigests } from '../../src/modules/identity/oauth-secret-refs.js';
import { up as migrate0014 } from '../../src/platform/db/migrations/0014-oauth-secret-refs.js';
import type { AppError } from '../../src/platform/errors.js';
import { AUTH_ENV, INTERNAL_TOKEN, sessionHeaders } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';

const REDIRECT = 'https://client.example/callback';
const PARTNER_SECRET = 'partner-secret-from-the-operator-4d2c';

describe('OAuth client secret references', () => {
  let ctx: TestContext;
  let organizationId: string;
  let admin: Record<string, string>;

  before(async () => {
    ctx = await createTestContext({
      env: { ...AUTH_ENV, SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS: `PARTNER=${PARTNER_SECRET}, OTHER=x-other-secret` },
    });
    organizationId = (await ctx.createOrganization({ name: 'Refs' })).organizationId;
    admin = await sessionHeaders(ctx, organizationId, 'admin');
  });
  after(() => ctx.close());

  const token = (clientId: string, clientSecret: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: 'ort_x',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    });
  const appCount = async () =>
    Number(
      (
        await ctx.database.db
          .selectFrom('oauth_apps')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('a tenant cannot name a secret reference: 400 naming clientSecretRef, nothing created', async () => {
    const before = await appCount();
    for (const clientSecretRef of ['env:SERVICE_INTERNAL_TOKEN', 'env:PARTNER', 'env:PATH', '']) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/oauth/apps',
        headers: admin,
        payload: { name: 'Ref', redirectUris: [REDIRECT], scopes: ['brands:read'], clientSecretRef },
      });
      assert.equal(res.statusCode, 400, clientSecretRef);
      assert.equal(res.json().error, 'invalid_credential_request');
      assert.ok(
        JSON.stringify(res.json().fields ?? []).includes('clientSecretRef') || /clientSecretRef/.test(res.json().message),
        res.body,
      );
    }
    assert.equal(await appCount(), before);
  });

  it('a generated secret is shown once, stored only as a hash, and authenticates; another does not', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/oauth/apps',
      headers: admin,
      payload: { name: 'Generated', redirectUris: [REDIRECT], scopes: ['brands:read'] },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { oauthApp, clientSecret } = res.json();
    assert.equal(oauthApp.clientSecretSource, 'stored_hash');
    assert.equal(oauthApp.clientSecretRef, null);
    const row = await ctx.database.db.selectFrom('oauth_apps').selectAll().where('id', '=', oauthApp.oauthAppId).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(clientSecret), 'the secret itself is not stored');
    assert.match(row.client_secret_hash ?? '', /^[0-9a-f]{64}$/);
    const listed = await listed_(oauthApp.oauthAppId);
    assert.equal(listed.clientSecretSource, 'stored_hash');
    assert.ok(!JSON.stringify(listed).includes(clientSecret), 'never shown again');
    assert.equal((await token(oauthApp.clientId, clientSecret)).json().error, 'oauth_refresh_token_invalid', 'client authenticated');
    assert.equal((await token(oauthApp.clientId, `${clientSecret}x`)).json().error, 'invalid_client');
  });

  it("the operator's reference (CLI) resolves only to its setting's entry, compared as a digest", async () => {
    const credentials = new CredentialsService(ctx.deps);
    const digests = clientSecretRefDigests(ctx.config.env);
    const made = await credentials.createApp(
      organizationId,
      { name: 'Partner', redirectUris: [REDIRECT], scopes: ['brands:read'] },
      { ref: 'env:PARTNER', digests },
    );
    assert.equal(made.clientSecret, null);
    assert.equal(made.oauthApp.clientSecretSource, 'reference');
    assert.equal(made.oauthApp.clientSecretRef, 'env:PARTNER');
    assert.equal((await token(made.oauthApp.clientId, PARTNER_SECRET)).json().error, 'oauth_refresh_token_invalid');
    const wrong = await token(made.oauthApp.clientId, 'x-other-secret');
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'invalid_client');
    // a name that is not an entry of the setting is refused, even when the process has such a variable
    for (const ref of ['env:SERVICE_INTERNAL_TOKEN', 'env:PATH', 'env:MISSING', 'PARTNER', 'sec_01']) {
      await assert.rejects(
        credentials.createApp(organizationId, { name: 'Bad', redirectUris: [REDIRECT], scopes: ['brands:read'] }, { ref, digests }),
        (e: AppError) => e.code === 'invalid_request' && /SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS/.test(e.message),
        ref,
      );
    }
  });

  it('never reads the process environment, and tells nothing about which variables exist', async () => {
    // a row as a tenant could store it before: a reference to a server variable
    process.env.SERVICE_INTERNAL_TOKEN_FOR_PROBE = INTERNAL_TOKEN;
    try {
      const legacy = await insertLegacyApp('env:SERVICE_INTERNAL_TOKEN_FOR_PROBE');
      const missing = await insertLegacyApp('env:NO_SUCH_VARIABLE_AT_ALL');
      const a = await token(legacy.clientId, INTERNAL_TOKEN);
      const b = await token(missing.clientId, 'guess');
      assert.equal(a.statusCode, 400);
      assert.equal(a.json().error, 'oauth_client_secret_unavailable', 'the variable is not a secret source');
      assert.deepEqual([b.statusCode, b.json().error, b.json().message], [a.statusCode, a.json().error, a.json().message], 'same answer');
      assert.ok(!a.body.includes('SERVICE_INTERNAL_TOKEN') && !a.body.includes('env:'), a.body);
    } finally {
      delete process.env.SERVICE_INTERNAL_TOKEN_FOR_PROBE;
    }
  });

  it('the migration removes stored tenant references: the app has no secret until an admin rotates it', async () => {
    const legacy = await insertLegacyApp('env:SERVICE_INTERNAL_TOKEN');
    await migrate0014(ctx.database.db as never);
    const view = await listed_(legacy.id);
    assert.equal(view.clientSecretSource, 'none');
    assert.equal(view.clientSecretRef, null);
    assert.equal((await token(legacy.clientId, INTERNAL_TOKEN)).json().error, 'invalid_client');
    const rotated = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/oauth/apps/${legacy.id}`,
      headers: admin,
      payload: { rotateSecret: true },
    });
    assert.equal(rotated.statusCode, 200, rotated.body);
    assert.equal(rotated.json().oauthApp.clientSecretSource, 'stored_hash');
    assert.equal((await token(legacy.clientId, rotated.json().clientSecret)).json().error, 'oauth_refresh_token_invalid');
  });

  async function listed_(id: string): Promise<Record<string, unknown>> {
    const res = await ctx.app.inject({ url: '/v1/oauth/apps?limit=100', headers: admin });
    assert.equal(res.statusCode, 200, res.body);
    const found = (res.json().data as Array<Record<string, unknown>>).find((a) => a.oauthAppId === id);
    assert.ok(found, `app ${id} listed`);
    return found;
  }

  let n = 0;
  async function insertLegacyApp(ref: string) {
    n += 1;
    const id = `oap_01J0000000000000000000000${n}`;
    const clientId = `client_legacy_${n}_${Date.now()}`;
    await ctx.database.db
      .insertInto('oauth_apps')
      .values({
        id,
        organization_id: organizationId,
        name: `Legacy ${n}`,
        client_id: clientId,
        client_secret_hash: null,
        client_secret_ref: ref,
        redirect_uris: [REDIRECT],
        scopes: ['brands:read'],
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
    return { id, clientId };
  }
});
