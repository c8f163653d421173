/** Schemas of the provider webhook routes: provisioning (internal) and the inbound endpoint. */
import { type Static, Type } from '@sinclair/typebox';

const PROVISION_PLATFORM_NAMES = [
  'facebook_page',
  'instagram_business',
  'instagram_standalone',
  'threads',
  'x',
  'youtube',
  'tiktok',
  'pinterest',
] as const;
const lit = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ProvisionBody = Type.Object(
  {
    platforms: Type.Optional(
      Type.Array(Type.Union(PROVISION_PLATFORM_NAMES.map((p) => Type.Literal(p))), {
        maxItems: PROVISION_PLATFORM_NAMES.length,
        uniqueItems: true,
        description: 'Platforms to provision; default all.',
      }),
    ),
    dryRun: Type.Optional(Type.Boolean({ default: true, description: 'true (default): answer what would be done and call no platform.' })),
  },
  { $id: 'ProviderWebhookProvisionRequest', additionalProperties: false },
);
export type ProvisionBodyT = Static<typeof ProvisionBody>;

const ProvisionStep = Type.Object(
  {
    request: Type.String({ description: 'method and URL of the platform call (no credentials)' }),
    description: Type.String(),
    outcome: lit(['would_call', 'ok', 'failed'] as const),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type ProvisionStepT = { request: string; description: string; outcome: 'would_call' | 'ok' | 'failed'; error: string | null };

const ProvisionPlatform = Type.Object(
  {
    platform: Type.String(),
    method: lit(['app_subscription', 'account_activity', 'websub', 'developer_console'] as const),
    callbackUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'where the platform delivers (null: set in the developer console)',
    }),
    outcome: lit(['would_provision', 'provisioned', 'failed', 'not_configured', 'manual'] as const),
    steps: Type.Array(ProvisionStep),
    note: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export interface ProvisionPlatformT {
  platform: string;
  method: 'app_subscription' | 'account_activity' | 'websub' | 'developer_console';
  callbackUrl: string | null;
  outcome: 'would_provision' | 'provisioned' | 'failed' | 'not_configured' | 'manual';
  steps: ProvisionStepT[];
  note: string | null;
}

export const ProvisionAnswer = Type.Object(
  { mode: lit(['dry_run', 'provisioned'] as const), platforms: Type.Array(ProvisionPlatform) },
  { $id: 'ProviderWebhookProvisionResult', additionalProperties: false },
);
export interface ProvisionAnswerT {
  mode: 'dry_run' | 'provisioned';
  platforms: ProvisionPlatformT[];
}

export const PlatformParams = Type.Object(
  {
    platform: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^[A-Za-z0-9_]+$',
      description: 'facebook_page, instagram_business, instagram_standalone, threads, x or youtube',
    }),
  },
  { additionalProperties: false },
);

export const HandshakeQuery = Type.Object(
  {
    'hub.mode': Type.Optional(Type.String({ maxLength: 40 })),
    'hub.challenge': Type.Optional(Type.String({ maxLength: 500 })),
    'hub.verify_token': Type.Optional(Type.String({ maxLength: 500 })),
    'hub.topic': Type.Optional(Type.String({ maxLength: 2000 })),
    'hub.lease_seconds': Type.Optional(Type.String({ maxLength: 20 })),
    crc_token: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: true },
);

export const DeliveryAnswer = Type.Object(
  {
    received: Type.Literal(true),
    duplicate: Type.Boolean({ description: 'true when this delivery was received before (a retry): nothing is done twice' }),
    events: Type.Integer({ minimum: 0, description: 'events found in the delivery' }),
  },
  { $id: 'ProviderWebhookDeliveryResult', additionalProperties: false },
);
