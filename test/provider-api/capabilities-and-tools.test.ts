/**
 * Provider routes: GET /v1/providers/capabilities validated against schemas written here from the
 * specification's text (independent of the route's own schemas), and POST /v1/providers/tools/{toolName}
 * against a standalone X simulator, with its error mapping.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type RunningXSimulator, startXSimulator } from '../../src/sandbox/simulators/x.simulator.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { xSimulatorEnv } from '../support/simulators.js';

type Org = Awaited<ReturnType<TestContext['createOrganization']>>;

const PLATFORMS = ['instagram_business', 'instagram_standalone', 'facebook_page', 'threads', 'youtube', 'pinterest', 'tiktok', 'x'];
const lit = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Platform = lit(PLATFORMS);
const ToolName = lit(['mentionSearch', 'pageProfile', 'channelCategories', 'boardList', 'privacyOptions', 'communitySearch']);
const PlugName = lit(['firstComment', 'reply']);
const SettingRule = Type.Object({
  field: Type.String(),
  label: Type.String(),
  valueType: lit(['string', 'boolean', 'number']),
  required: Type.Boolean(),
  allowedValues: Type.Optional(Type.Array(Type.String())),
});
const MediaRule = Type.Object(
  {
    allowedKinds: Type.Array(lit(['image', 'video', 'gif'])),
    minItems: Type.Integer({ minimum: 0 }),
    maxItems: Type.Integer({ minimum: 1 }),
    notes: Type.Array(Type.String()),
    maxImageBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
    maxVideoBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
    maxGifBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0 })),
    minVideoDurationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    maxVideoDurationSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    dynamicMaxVideoDurationSetting: Type.Optional(Type.String()),
    requiresVideoThumbnail: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const Capability = Type.Object(
  {
    platform: Platform,
    displayName: Type.String(),
    requiredScopes: Type.Array(Type.String()),
    mediaRule: MediaRule,
    supportsScheduling: Type.Boolean(),
    supportsComments: Type.Boolean(),
    supportsAnalytics: Type.Boolean(),
    supportsDelete: Type.Boolean(),
    supportsUpdate: Type.Boolean(),
    settingsFields: Type.Array(Type.String()),
    toolNames: Type.Array(ToolName),
    plugNames: Type.Array(PlugName),
    rateLimitPolicy: lit(['low_concurrency', 'standard', 'strict']),
    maxTextLength: Type.Optional(Type.Integer({ minimum: 0 })),
    settingRules: Type.Optional(Type.Array(SettingRule)),
  },
  { additionalProperties: false },
);
const Tool = Type.Object({
  name: ToolName,
  label: Type.String(),
  category: lit(['account_lookup', 'composer_lookup', 'publishing_option']),
  description: Type.String(),
  platforms: Type.Array(Platform),
  inputFields: Type.Array(SettingRule),
  outputKind: lit(['account_reference', 'profile', 'category', 'board', 'privacy_option', 'community']),
});
const Plug = Type.Object({
  name: PlugName,
  label: Type.String(),
  phase: lit(['post_publish', 'threading']),
  description: Type.String(),
  platforms: Type.Array(Platform),
  settingRules: Type.Array(SettingRule),
});
const Response = Type.Object({
  providers: Type.Array(Capability),
  tools: Type.Array(Tool),
  plugs: Type.Array(Plug),
});

function errorsOf(schema: TSchema, value: unknown): string[] {
  return [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`);
}

describe('provider tools route', () => {
  let ctx: TestContext;
  let sim: RunningXSimulator;
  let a: Org;
  let b: Org;
  let channelId: string;
  let accessToken: string;
  let capOrg: Org;

  before(async () => {
    sim = await startXSimulator({ clientId: 'cid', clientSecret: 'csecret' });
    ctx = await createTestContext({
      env: {
        ...xSimulatorEnv(sim, 'cid', 'csecret'),
      },
    });
    a = await ctx.createOrganization({ name: 'A' });
    b = await ctx.createOrganization({ name: 'B' });
    capOrg = await ctx.createOrganization({ scopes: ['brands:read'] });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/channel-accounts/connect-url',
      headers: a.auth,
      payload: { platform: 'x' },
    });
    const consent = await fetch(res.json().authorizationUrl, {
      redirect: 'manual',
    });
    const cb = new URL(consent.headers.get('location')!);
    const done = await ctx.app.inject({
      method: 'GET',
      url: `/v1/channel-accounts/oauth/callback/x${cb.search}`,
    });
    channelId = done.json().channelAccountId;
    accessToken = [...sim.state.tokens.keys()].at(-1)!;
  });
  after(async () => {
    await ctx.close();
    await sim.close();
  });

  const run = (tool: string, body: Record<string, unknown>, org: Org = a) =>
    ctx.app.inject({
      method: 'POST',
      url: `/v1/providers/tools/${tool}`,
      headers: org.auth,
      payload: body,
    });

  it('answers every platform, validating against the specification schemas, for any valid credential', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/providers/capabilities',
      headers: capOrg.auth,
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(errorsOf(Response, body), []);
    assert.deepEqual(body.providers.map((p: { platform: string }) => p.platform).sort(), [...PLATFORMS].sort());
    for (const p of body.providers) {
      assert.deepEqual(errorsOf(Capability, p), [], p.platform);
      assert.ok(p.mediaRule.maxItems >= p.mediaRule.minItems, p.platform);
      assert.ok(p.requiredScopes.length > 0, `${p.platform} lists its scopes`);
    }
  });

  it("derives tool and plug platforms from the adapters' capability data", async () => {
    const body = (
      await ctx.app.inject({
        method: 'GET',
        url: '/v1/providers/capabilities',
        headers: capOrg.auth,
      })
    ).json();
    for (const tool of body.tools) {
      const expected = body.providers
        .filter((p: { toolNames: string[] }) => p.toolNames.includes(tool.name))
        .map((p: { platform: string }) => p.platform);
      assert.deepEqual(tool.platforms, expected, tool.name);
    }
    for (const plug of body.plugs) {
      const expected = body.providers
        .filter((p: { plugNames: string[] }) => p.plugNames.includes(plug.name))
        .map((p: { platform: string }) => p.platform);
      assert.deepEqual(plug.platforms, expected, plug.name);
    }
    const board = body.tools.find((t: { name: string }) => t.name === 'boardList');
    assert.deepEqual(board.platforms, ['pinterest']);
    assert.equal(board.outputKind, 'board');
    const youtube = body.providers.find((p: { platform: string }) => p.platform === 'youtube');
    assert.ok(
      youtube.settingRules.some((r: { field: string }) => /privacy/i.test(r.field)),
      'YouTube privacy setting rule',
    );
  });

  it('needs a credential', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/v1/providers/capabilities',
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'public_api_token_required');
  });

  it("runs a tool the platform supports with the channel's token", async () => {
    const res = await run('communitySearch', {
      channelAccountId: channelId,
      input: { query: 'sandbox' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.tool, 'communitySearch');
    assert.ok(body.results.some((c: { name: string }) => c.name === 'Sandbox Makers'));
    assert.ok(!res.body.includes(accessToken));
    assert.ok(sim.ledger.count('community_search') >= 1);
  });

  it('answers clear 4xx errors: unsupported tool, unknown tool, bad input, foreign or disconnected channel, scope', async () => {
    const unsupported = await run('boardList', { channelAccountId: channelId });
    assert.equal(unsupported.statusCode, 400);
    assert.equal(unsupported.json().error, 'provider_tool_unsupported');
    assert.deepEqual(unsupported.json().supportedTools, ['mentionSearch', 'communitySearch']);
    const unknown = await run('teleport', { channelAccountId: channelId });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error, 'invalid_public_provider_tool_request');
    const noChannel = await run('mentionSearch', { input: {} });
    assert.equal(noChannel.json().error, 'invalid_public_provider_tool_request');
    const badInput = await run('mentionSearch', {
      channelAccountId: channelId,
      input: {},
    });
    assert.equal(badInput.statusCode, 400);
    assert.equal(badInput.json().error, 'invalid_public_provider_tool_request');
    const foreign = await run('mentionSearch', { channelAccountId: channelId, input: { query: 'a' } }, b);
    assert.equal(foreign.statusCode, 404);
    assert.equal(foreign.json().error, 'channel_account_not_found');
    const noScope = await ctx.createOrganization({ scopes: ['publish:read'] });
    assert.equal((await run('mentionSearch', { channelAccountId: channelId, input: { query: 'a' } }, noScope)).statusCode, 401);
    await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/channel-accounts/${channelId}`,
      headers: a.auth,
      payload: { organizationId: a.organizationId, state: 'disabled' },
    });
    const disabled = await run('mentionSearch', {
      channelAccountId: channelId,
      input: { query: 'a' },
    });
    assert.equal(disabled.statusCode, 409);
    assert.equal(disabled.json().error, 'channel_account_not_connected');
    await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/channel-accounts/${channelId}`,
      headers: a.auth,
      payload: { organizationId: a.organizationId, state: 'connected' },
    });
  });

  it('maps platform failures: 429 with Retry-After, 502, and a refused token as not connected', async () => {
    sim.failures.inject({
      kind: 'rate_limit',
      operation: 'community_search',
      retryAfterSeconds: 42,
    });
    const limited = await run('communitySearch', {
      channelAccountId: channelId,
      input: { query: 'x' },
    });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error, 'provider_rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    sim.failures.inject({
      kind: 'server_error',
      operation: 'community_search',
    });
    const down = await run('communitySearch', {
      channelAccountId: channelId,
      input: { query: 'x' },
    });
    assert.equal(down.statusCode, 502);
    assert.equal(down.json().error, 'provider_request_failed');
    assert.equal(down.json().providerCategory, 'transient');
    sim.failures.inject({
      kind: 'expired_token',
      operation: 'community_search',
    });
    const expired = await run('communitySearch', {
      channelAccountId: channelId,
      input: { query: 'x' },
    });
    assert.equal(expired.statusCode, 409);
    assert.equal(expired.json().error, 'channel_account_not_connected');
    for (const r of [limited, down, expired]) assert.ok(!r.body.includes(accessToken));
  });
});
