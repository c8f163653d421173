/**
 * The dashboard's settings for the tool API (tool-api.md, Authentication: "a key is created in settings"):
 * the signed-in person's own tool API keys, listed masked, created with tool scopes (the full key in the
 * creation answer only) and revoked. Policy dashboard.session: tool keys belong to a person and follow
 * their membership tier, not an organization role. A Basic tier has no tool API access, so creating a key
 * there is 403 membership_required (the listing says the tier and its limits).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requirePolicy, userActorOf } from '../../http/dashboard-auth.js';
import { errorResponses, IdOf, Nullable } from '../../http/shared-schemas.js';
import { AppError } from '../../platform/errors.js';
import type { ToolKeysService } from './tool-keys.service.js';
import { parseToolScopes } from './tool-keys.service.js';
import { TIER_LIMITS, TOOL_SCOPES, TOOL_WILDCARD_SCOPE, tierLimits } from './tool-limits.js';

const tags = ['Tool API keys'];
const security: Array<Record<string, string[]>> = [{ dashboardSessionCookie: [] }, { dashboardSession: [] }];
const errors = ['invalid_tool_api_key_request', 'dashboard_session_required', 'permission_denied', 'internal_server_error'] as const;
const KNOWN_SCOPES = [...Object.values(TOOL_SCOPES), ...Object.keys(TOOL_SCOPES).map((tool) => `tools:${tool}:*`), TOOL_WILDCARD_SCOPE];
const ScopeName = Type.Union(
  KNOWN_SCOPES.map((scope) => Type.Literal(scope)),
  { description: 'A tool scope; `tools:<tool>:*` and `tools:*` are wildcards.' },
);

const Tier = Type.Union([Type.Literal('basic'), Type.Literal('pro'), Type.Literal('max')]);
const TierLimitsView = Type.Object(
  {
    utmLinksPerDay: Type.Integer(),
    utmLinksPerRequest: Type.Integer(),
    qrCodesPerDay: Type.Integer(),
    requestsPerMinute: Type.Integer(),
  },
  { additionalProperties: false },
);
const ToolKey = Type.Object(
  {
    apiKeyId: Type.String(),
    name: Type.String(),
    maskedKey: Type.String({ description: 'The visible prefix and the last four characters; never the secret.' }),
    scopes: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ToolApiKey', additionalProperties: false },
);
const ToolKeyList = Type.Object(
  {
    tier: Tier,
    apiAccess: Type.Boolean({ description: 'false on the Basic tier: keys cannot be created and existing ones are refused.' }),
    limits: Nullable(TierLimitsView),
    availableScopes: Type.Array(Type.String()),
    data: Type.Array(Type.Ref('ToolApiKey')),
  },
  { $id: 'ToolApiKeyList', additionalProperties: false },
);
const ToolKeyCreateRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    scopes: Type.Optional(Type.Array(ScopeName, { minItems: 1, maxItems: 10, description: 'Default: every tool scope.' })),
  },
  { $id: 'ToolApiKeyCreateRequest', additionalProperties: false },
);
const ToolKeyCreated = Type.Object(
  {
    apiKey: Type.String({ description: 'The full key, shown in this answer only.' }),
    apiKeyId: Type.String(),
    prefix: Type.String(),
    scopes: Type.Array(Type.String()),
    tier: Tier,
  },
  { $id: 'ToolApiKeyCreated', additionalProperties: false },
);
const ToolKeyParams = Type.Object({ toolApiKeyId: IdOf('tkey') }, { additionalProperties: false });

function limitsOf(tier: string) {
  const limits = tierLimits(tier);
  return limits
    ? {
        utmLinksPerDay: limits.dailyQuota['utm-builder'],
        utmLinksPerRequest: limits.utmLinksPerRequest,
        qrCodesPerDay: limits.dailyQuota.qrcode,
        requestsPerMinute: limits.requestsPerMinute,
      }
    : null;
}

type TierName = 'basic' | 'pro' | 'max';
const tierName = (tier: string): TierName => (tier in TIER_LIMITS ? (tier as TierName) : 'basic');

export function registerToolKeyRoutes(root: FastifyInstance, keys: ToolKeysService, now: () => Date): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ToolKey);
  const policy = requirePolicy('dashboard.session');

  app.get(
    '/v1/me/tool-keys',
    {
      config: policy,
      schema: {
        operationId: 'listMyToolApiKeys',
        tags,
        summary: "The signed-in person's tool API keys (masked), tier and limits",
        security,
        response: { 200: ToolKeyList, ...errorResponses(...errors) },
      },
    },
    async (request, reply) => {
      const actor = userActorOf(request);
      const { tier, keys: data } = await keys.keysOf(actor.email);
      reply.header('cache-control', 'no-store');
      const name = tierName(tier);
      return {
        tier: name,
        apiAccess: name !== 'basic',
        limits: limitsOf(name),
        availableScopes: KNOWN_SCOPES,
        data,
      };
    },
  );

  app.post(
    '/v1/me/tool-keys',
    {
      config: { ...policy, validationCode: 'invalid_tool_api_key_request' },
      schema: {
        operationId: 'createMyToolApiKey',
        tags,
        summary: 'Create a tool API key; the full key is in this answer only',
        description: 'Needs a Pro or Max membership tier (Basic: 403 membership_required). Scopes limit the tools, never the tier.',
        security,
        body: ToolKeyCreateRequest,
        response: { 201: ToolKeyCreated, ...errorResponses(...errors, 'membership_required') },
      },
    },
    async (request, reply) => {
      const actor = userActorOf(request);
      const scopes = parseToolScopes(request.body.scopes?.join(','));
      const { tier } = await keys.keysOf(actor.email);
      if (tierName(tier) === 'basic') {
        throw new AppError('membership_required', {
          message: 'Your membership tier (Basic) has no tool API access; an operator can move you to Pro or Max.',
        });
      }
      const created = await keys.createKey({ email: actor.email, scopes, name: request.body.name }, now());
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({
        apiKey: created.apiKey,
        apiKeyId: created.apiKeyId,
        prefix: created.prefix,
        scopes: created.scopes,
        tier: tierName(created.tier),
      });
    },
  );

  app.delete(
    '/v1/me/tool-keys/:toolApiKeyId',
    {
      config: { ...policy, validationCode: 'invalid_tool_api_key_request' },
      schema: {
        operationId: 'revokeMyToolApiKey',
        tags,
        summary: 'Revoke one of your tool API keys',
        description: 'The next tool request with the key is 401 invalid_api_key.',
        security,
        params: ToolKeyParams,
        response: {
          204: { type: 'null', description: 'Revoked (also when it was revoked already).' },
          ...errorResponses(...errors, 'tool_api_key_not_found'),
        },
      },
    },
    async (request, reply) => {
      await keys.revokeOwnKey(userActorOf(request).userId, request.params.toolApiKeyId, now());
      return reply.code(204).send();
    },
  );
}
