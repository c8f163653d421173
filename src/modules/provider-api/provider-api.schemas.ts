import { Type } from '@sinclair/typebox';
import { MEDIA_KINDS, PLATFORMS, PROVIDER_PLUG_NAMES, PROVIDER_TOOL_NAMES, RATE_LIMIT_POLICIES } from '../../providers/provider.js';

const Enum = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>(Type.String({ enum: [...values], description }));

const ProviderSettingRule = Type.Object(
  {
    field: Type.String(),
    label: Type.String(),
    valueType: Enum(['string', 'boolean', 'number'] as const),
    required: Type.Boolean(),
    allowedValues: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'ProviderSettingRule', additionalProperties: false },
);

const ProviderMediaRule = Type.Object(
  {
    allowedKinds: Type.Array(Enum(MEDIA_KINDS)),
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
  { $id: 'ProviderMediaRule', additionalProperties: false },
);

const ProviderCapability = Type.Object(
  {
    platform: Enum(PLATFORMS),
    displayName: Type.String(),
    requiredScopes: Type.Array(Type.String()),
    mediaRule: ProviderMediaRule,
    supportsScheduling: Type.Boolean(),
    supportsComments: Type.Boolean(),
    supportsAnalytics: Type.Boolean(),
    supportsDelete: Type.Boolean(),
    supportsUpdate: Type.Boolean(),
    settingsFields: Type.Array(Type.String()),
    toolNames: Type.Array(Enum(PROVIDER_TOOL_NAMES)),
    plugNames: Type.Array(Enum(PROVIDER_PLUG_NAMES)),
    rateLimitPolicy: Enum(RATE_LIMIT_POLICIES),
    maxTextLength: Type.Optional(Type.Integer({ minimum: 0 })),
    settingRules: Type.Optional(Type.Array(ProviderSettingRule)),
  },
  { $id: 'ProviderCapability', additionalProperties: false },
);

const ProviderToolDefinition = Type.Object(
  {
    name: Enum(PROVIDER_TOOL_NAMES),
    label: Type.String(),
    category: Enum(['account_lookup', 'composer_lookup', 'publishing_option'] as const),
    description: Type.String(),
    platforms: Type.Array(Enum(PLATFORMS)),
    inputFields: Type.Array(ProviderSettingRule),
    outputKind: Enum(['account_reference', 'profile', 'category', 'board', 'privacy_option', 'community'] as const),
  },
  { $id: 'ProviderToolDefinition', additionalProperties: false },
);

const ProviderPlugDefinition = Type.Object(
  {
    name: Enum(PROVIDER_PLUG_NAMES),
    label: Type.String(),
    phase: Enum(['post_publish', 'threading'] as const),
    description: Type.String(),
    platforms: Type.Array(Enum(PLATFORMS)),
    settingRules: Type.Array(ProviderSettingRule),
  },
  { $id: 'ProviderPlugDefinition', additionalProperties: false },
);

export const ProviderCapabilitiesResponse = Type.Object(
  {
    providers: Type.Array(ProviderCapability),
    tools: Type.Array(ProviderToolDefinition),
    plugs: Type.Array(ProviderPlugDefinition),
  },
  { $id: 'ProviderCapabilitiesResponse', additionalProperties: false },
);

export const ProviderToolParams = Type.Object(
  { toolName: Enum(PROVIDER_TOOL_NAMES, 'Provider tool name') },
  { additionalProperties: false },
);

export const ProviderToolRequest = Type.Object(
  {
    channelAccountId: Type.String({ minLength: 1, maxLength: 128 }),
    input: Type.Optional(Type.Object({}, { additionalProperties: true, default: {} })),
  },
  { $id: 'ProviderToolRequest', additionalProperties: false },
);

export const ProviderToolResponse = Type.Object(
  {
    tool: Enum(PROVIDER_TOOL_NAMES),
    results: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ProviderToolResponse', additionalProperties: false },
);
