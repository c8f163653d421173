/**
 * Every authenticated operation of the OpenAPI document passes the shared security checks
 * (test/support/shared-security.ts): no credential, another organization, a missing scope, a revoked
 * key, a session below the policy. A new route is covered as soon as it is documented; it only needs
 * a value for a new kind of path id below.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { TokenVault } from '../../src/modules/channels/token-vault.js';
import { newId } from '../../src/platform/ids.js';
import { AUTH_ENV, sessionHeaders } from '../support/auth.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import {
  type Credential,
  runSharedSecurityChecks,
  type SecuredOperation,
  type SecurityFixtures,
  securedOperations,
} from '../support/shared-security.js';

type Doc = Parameters<typeof securedOperations>[0];

const ctx: TestContext = await createTestContext({ env: { ...AUTH_ENV, SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true' } });
const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as Doc;
const { operations, excluded } = securedOperations(doc);

/** A well-formed id of nothing, from the parameter's documented pattern (`^brd_...`) or format. */
function absentId(param: string): string {
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) {
      const p = ((op.parameters ?? []) as { name: string; in: string; schema?: { pattern?: string; format?: string } }[]).find(
        (x) => x.in === 'path' && x.name === param,
      );
      const prefix = p?.schema?.pattern ? /^\^([a-z]+)_/.exec(p.schema.pattern)?.[1] : undefined;
      if (prefix) return `${prefix}_01J${'0'.repeat(23)}`;
      if (p?.schema?.format === 'uuid') return randomUUID();
    }
  return randomUUID();
}

describe('shared security checks of every authenticated operation', () => {
  let fixtures: SecurityFixtures;

  before(async () => {
    const a = await ctx.createOrganization({ name: 'Owner org' });
    const b = await ctx.createOrganization({ name: 'Other org' });
    const session = (organizationId: string, role: 'member' | 'owner'): Promise<Credential> => sessionHeaders(ctx, organizationId, role);
    const ownerA = await session(a.organizationId, 'owner');
    const post = async (url: string, headers: Credential, payload: unknown) => {
      const res = await ctx.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
      assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const put = async (url: string, headers: Credential, payload: unknown) => {
      const res = await ctx.app.inject({ method: 'PUT', url, headers, payload: payload as Record<string, unknown> });
      assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    const get = async (url: string, headers: Credential) => {
      const res = await ctx.app.inject({ method: 'GET', url, headers });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return res.json();
    };
    const newKey = async (scopes: string[]) => post('/v1/api-keys', ownerA, { name: 'security', scopes });

    // the first organization's resources, whose ids go into the paths
    const { brandId } = await ctx.createBrand(a.organizationId, 'Security brand');
    const png = fs.readFileSync('test/fixtures/media/sample.png');
    const media = await post('/v1/media', a.auth, { dataBase64: png.toString('base64'), fileName: 'sample.png' });
    const endpoint = await post('/v1/webhook-endpoints', a.auth, { url: 'https://hooks.example.com/security' });
    const source = await post('/v1/automation-sources', a.auth, { brandId, kind: 'external', name: 'security' });
    const app = await post('/v1/oauth/apps', ownerA, {
      name: 'Security',
      redirectUris: ['https://app.example.com/cb'],
      scopes: ['brands:read'],
    });
    const key = await newKey(['brands:read']);
    // a channel (token in the vault), then what hangs off it: a profile, a publish job, a batch and its
    // asset, a comment on the channel, a webhook delivery of the job's event and an automation run
    const vault = new TokenVault(ctx.deps.encryptor, ctx.config);
    const tokenRef = await vault.store(ctx.database.db, {
      organizationId: a.organizationId,
      platform: 'x',
      kind: 'access',
      token: 'x-token',
      at: ctx.clock.now(),
    });
    const channel = await put('/v1/channel-accounts', a.auth, {
      organizationId: a.organizationId,
      brandId,
      platform: 'x',
      externalAccountId: 'security-x',
      displayName: 'Security on X',
      accessTokenRef: tokenRef,
    });
    const target = { platform: 'x', channelAccountId: channel.channelAccountId };
    const profile = await put('/v1/publishing-profiles', a.auth, {
      organizationId: a.organizationId,
      brandId,
      name: 'Security profile',
      channels: [target],
    });
    const job = await post('/v1/publish/jobs', a.auth, {
      plan: { brandId, text: 'Security post', media: [], targets: [target] },
      dryRun: false,
      enqueue: false,
    });
    const product = await post(`/v1/brands/${brandId}/products`, ownerA, {
      name: 'Security product',
      productUrl: 'https://shop.example/p/1',
    });
    const batch = await post('/v1/publish/batches', a.auth, {
      brandId,
      dryRun: false,
      from: new Date(ctx.clock.now().getTime() + 86_400_000).toISOString(),
      policy: { id: 'daily', horizonDays: 7, slots: [{ id: 'noon', localTime: '12:00', timezone: 'UTC' }] },
      items: [{ clientAssetId: 'security-asset', productId: product.productId, text: 'Security batch post', targets: [target] }],
    });
    const deliveries = await get(`/v1/webhook-endpoints/${endpoint.webhookEndpointId}/deliveries`, a.auth);
    assert.ok(deliveries.data.length > 0, 'the publish job event was fanned out to the endpoint');
    const run = await post('/v1/automation-runs', a.auth, { automationSourceId: source.automationSourceId, dryRun: false });
    const commentId = newId('sc');
    const now = ctx.clock.now();
    await ctx.database.db
      .insertInto('social_comments')
      .values({
        id: commentId,
        organization_id: a.organizationId,
        brand_id: brandId,
        channel_account_id: channel.channelAccountId,
        platform: 'x',
        provider_post_id: 'x-post-1',
        provider_comment_id: 'x-comment-1',
        body: 'A comment',
        status: 'needs_reply',
        reply_status: 'none',
        metrics: '{}',
        last_synced_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();

    // a grant of the OAuth app to the first organization's owner, as the authorization-code flow leaves it
    // (test/identity/oauth.test.ts runs that flow)
    const grantId = newId('oag');
    await ctx.database.db
      .insertInto('oauth_authorizations')
      .values({
        id: grantId,
        organization_id: a.organizationId,
        oauth_app_id: app.oauthApp.oauthAppId,
        user_id: a.userId,
        scopes: ['brands:read'],
        created_at: now,
      })
      .execute();

    const revoked = await newKey(['brands:read']);
    const revokedKey = { authorization: `Bearer ${revoked.secret}` };
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/v1/brands', headers: revokedKey })).statusCode, 200);
    const del = await ctx.app.inject({ method: 'DELETE', url: `/v1/api-keys/${revoked.apiKey.apiKeyId}`, headers: ownerA });
    assert.equal(del.statusCode, 204, del.body);

    const allScopes = [...new Set(operations.map((o) => o.scope).filter((s): s is string => !!s && s !== 'any'))];
    const without = new Map<string, Credential>();

    const owned = (value: string) => ({ value, owned: true });
    const absent = (param: string) => ({ value: absentId(param), owned: false });
    fixtures = {
      ids: {
        brandId: owned(brandId),
        mediaLibraryItemId: owned(media.mediaLibraryItemId),
        webhookEndpointId: owned(endpoint.webhookEndpointId),
        automationSourceId: owned(source.automationSourceId),
        oauthAppId: owned(app.oauthApp.oauthAppId),
        apiKeyId: owned(key.apiKey.apiKeyId),
        channelAccountId: owned(channel.channelAccountId),
        profileId: owned(profile.profileId),
        publishJobId: owned(job.publishJobId),
        publishBatchId: owned(batch.publishBatchId),
        assetId: owned(batch.items[0].assetId),
        deliveryId: owned(deliveries.data[0].deliveryId),
        socialCommentId: owned(commentId),
        automationRunId: owned(run.automationRunId),
        productId: owned(product.productId),
        // a person's own tool API key (test/dashboard/workspace-setup.test.ts: another person's is 404)
        toolApiKeyId: absent('toolApiKeyId'),
        authorizationId: owned(grantId),
        // not resources of an organization
        toolName: { value: 'x.get_user', owned: false },
        platform: { value: 'x', owned: false },
      },
      credentialOptional: { 'POST /v1/auth/logout': 'signing out without a session answers 204: nothing to end' },
      // valid bodies, so another organization's call reaches the lookup; where a body names the
      // organization it names the caller's own, as an attacker would
      bodies: {
        patchChannelAccount: { organizationId: b.organizationId, displayName: 'renamed' },
        disconnectChannelAccount: { organizationId: b.organizationId },
        selectChannelAccountChoice: { organizationId: b.organizationId, externalAccountId: 'security-x' },
        replyToSocialComment: { organizationId: b.organizationId, brandId: absentId('brandId'), body: 'Reply', dryRun: false },
        hideSocialComment: { hidden: true },
        recordAutomationRunStatus: { status: 'cancelled' },
        schedulePublishJob: { scheduleAt: new Date(ctx.clock.now().getTime() + 7_200_000).toISOString() },
        rejectPublishJob: { reason: 'not this one' },
        updatePublishingSettings: { membersPublishDirectly: true },
        updateOAuthApp: { name: 'renamed' },
        createBrandProduct: { name: 'Product' },
        updateBrand: { name: 'renamed' },
        updateBrandProduct: { name: 'renamed' },
        updateWebhookEndpoint: { enabled: false },
        recoverWebhookEndpoint: { since: new Date(ctx.clock.now().getTime() - 3_600_000).toISOString() },
        updateAutomationSource: { name: 'renamed' },
      },
      own: {
        revokedKey,
        memberSession: await session(a.organizationId, 'member'),
        ownerSession: ownerA,
        async keyWithout(scope) {
          if (!without.has(scope)) {
            const k = await newKey(allScopes.filter((s) => s !== scope));
            without.set(scope, { authorization: `Bearer ${k.secret}` });
          }
          return without.get(scope)!;
        },
      },
      other: { key: b.auth, ownerSession: await session(b.organizationId, 'owner') },
    };
  });
  after(() => ctx.close());

  it('the document names what every operation needs', () => {
    assert.ok(operations.length > 60, `only ${operations.length} secured operations found`);
    // separate machinery with suites of its own (test/tools, test/identity)
    assert.deepEqual(excluded.sort(), [
      'POST /api/v1/tools/qrcode/generate',
      'POST /api/v1/tools/utm-builder/build',
      'POST /v1/auth/browser-session/exchange',
    ]);
    const missing = operations.filter(
      (o: SecuredOperation) =>
        !fixtures.credentialOptional?.[`${o.method} ${o.path}`] && (o.schemes.has('publicBearer') ? !o.scope : !o.policy),
    );
    assert.deepEqual(
      missing.map((o) => `${o.method} ${o.path}`),
      [],
    );
  });

  for (const op of operations) it(`${op.method} ${op.path}`, () => runSharedSecurityChecks(ctx, op, fixtures));

  it("the other organization's writes changed nothing of the first one", async () => {
    const id = (name: string) => fixtures.ids[name]!.value;
    const db = ctx.database.db;
    const channel = await db
      .selectFrom('channel_accounts')
      .select(['state', 'display_name'])
      .where('id', '=', id('channelAccountId'))
      .executeTakeFirstOrThrow();
    assert.deepEqual(channel, { state: 'connected', display_name: 'Security on X' });
    const job = await db
      .selectFrom('publish_jobs')
      .select(['status', 'scheduled_at'])
      .where('id', '=', id('publishJobId'))
      .executeTakeFirstOrThrow();
    assert.notEqual(job.status, 'cancelled');
    assert.equal(job.scheduled_at, null);
    const comment = await db
      .selectFrom('social_comments')
      .select(['hidden', 'reply_status'])
      .where('id', '=', id('socialCommentId'))
      .executeTakeFirstOrThrow();
    assert.deepEqual(comment, { hidden: false, reply_status: 'none' });
    const run = await db.selectFrom('automation_runs').select('status').where('id', '=', id('automationRunId')).executeTakeFirstOrThrow();
    assert.notEqual(run.status, 'cancelled');
    const grant = await db
      .selectFrom('oauth_authorizations')
      .select('revoked_at')
      .where('id', '=', id('authorizationId'))
      .executeTakeFirstOrThrow();
    assert.equal(grant.revoked_at, null, 'the grant is not revoked');
    for (const [table, name] of [
      ['publishing_profiles', 'profileId'],
      ['media_library_items', 'mediaLibraryItemId'],
      ['webhook_endpoints', 'webhookEndpointId'],
      ['automation_sources', 'automationSourceId'],
      ['oauth_apps', 'oauthAppId'],
    ] as const)
      assert.ok(await db.selectFrom(table).select('id').where('id', '=', id(name)).executeTakeFirst(), `${table} row still there`);
  });
});
