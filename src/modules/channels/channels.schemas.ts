import { type Static, Type } from '@sinclair/typebox';
import { IdOf, ListOf, Nullable, NullOr, PaginationQuery, PlatformRef } from '../../http/shared-schemas.js';
import { CHANNEL_ACCOUNT_STATES, type ChannelAccountState } from './channel-states.js';

const StateRef = Type.Unsafe<ChannelAccountState>(
  Type.String({
    enum: [...CHANNEL_ACCOUNT_STATES],
    description: 'ChannelAccountState',
  }),
);

const Count = Type.Integer({ minimum: 0 });
const DisconnectSummary = Type.Object(
  {
    alreadyDisconnected: Type.Boolean(),
    revokedChannelTokenCount: Count,
    revokedProviderTokenSecretCount: Count,
    cancelledPostTargetCount: Count,
    needsReconnectPostTargetCount: Count,
    needsAttentionPostTargetCount: Count,
    cancelledBatchTargetCount: Count,
    needsReconnectBatchTargetCount: Count,
    needsAttentionBatchTargetCount: Count,
    disabledPublishingProfileChannelCount: Count,
  },
  { additionalProperties: false },
);

export const ChannelAccount = Type.Object(
  {
    channelAccountId: Type.String(),
    organizationId: Type.String(),
    brandId: Nullable(Type.String()),
    brandName: Nullable(Type.String()),
    brandSlug: Nullable(Type.String()),
    platform: PlatformRef,
    platformAppId: Nullable(Type.String()),
    externalAccountId: Type.String(),
    displayName: Type.String(),
    handle: Nullable(Type.String()),
    state: StateRef,
    tokenExpiresAt: Nullable(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    disconnectSummary: Type.Optional(DisconnectSummary),
  },
  { $id: 'ChannelAccount', additionalProperties: false },
);
const ChannelAccountRef = Type.Unsafe<Static<typeof ChannelAccount>>(Type.Ref('ChannelAccount'));

const Id = Type.String({ minLength: 1, maxLength: 128 });
const NullableId = NullOr(Type.String({ minLength: 1, maxLength: 256 }));

export const ChannelAccountListQuery = Type.Object(
  {
    brandId: Type.Optional(Id),
    platform: Type.Optional(PlatformRef),
    state: Type.Optional(StateRef),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);

export const ChannelAccountUpsertRequest = Type.Object(
  {
    organizationId: Id,
    platform: PlatformRef,
    externalAccountId: Type.String({ minLength: 1, maxLength: 256 }),
    displayName: Type.String({ minLength: 1, maxLength: 256 }),
    accessTokenRef: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'sec_<id> (a stored secret of this organization) or env:NAME (SERVICE_CHANNEL_TOKEN_ENV_REFS); never the token itself',
    }),
    brandId: Type.Optional(NullableId),
    platformAppId: Type.Optional(NullableId),
    handle: Type.Optional(NullableId),
    refreshTokenRef: Type.Optional(NullableId),
    tokenExpiresAt: Type.Optional(NullOr(Type.String({ minLength: 1, format: 'date-time' }))),
    state: Type.Optional({ ...StateRef, default: 'connected' }),
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: 100,
        description: 'Default [] when the account is created; omitted on an update, the saved scopes stay.',
      }),
    ),
  },
  { $id: 'ChannelAccountUpsertRequest', additionalProperties: false },
);

export const ChannelAccountPatchRequest = Type.Object(
  {
    organizationId: Id,
    brandId: Type.Optional(NullOr(Id)),
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    handle: Type.Optional(NullOr(Type.String({ maxLength: 256 }))),
    state: Type.Optional(StateRef),
    tokenExpiresAt: Type.Optional(NullOr(Type.String({ format: 'date-time' }))),
    additionalSettings: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  {
    $id: 'ChannelAccountPatchRequest',
    additionalProperties: false,
    description: 'Send at least one field besides organizationId (else 400).',
  },
);

export const ChannelAccountDeleteRequest = Type.Object(
  {
    organizationId: Id,
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { $id: 'ChannelAccountDeleteRequest', additionalProperties: false },
);

export const ChannelAccountParams = Type.Object({ channelAccountId: IdOf('cha') }, { additionalProperties: false });

/** An account an in_between_steps channel can become (no token). */
export const ChannelChoice = Type.Object(
  {
    externalAccountId: Type.String(),
    displayName: Type.String(),
    handle: Type.Union([Type.String(), Type.Null()]),
    avatarUrl: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const ChannelAccountList = ListOf(ChannelAccountRef, undefined, 'ChannelAccountList');

export type ChannelAccountT = Static<typeof ChannelAccount>;
export type DisconnectSummaryT = Static<typeof DisconnectSummary>;
export type ChannelAccountListQueryT = Static<typeof ChannelAccountListQuery>;
export type ChannelAccountUpsertT = Static<typeof ChannelAccountUpsertRequest>;
export type ChannelAccountPatchT = Static<typeof ChannelAccountPatchRequest>;
