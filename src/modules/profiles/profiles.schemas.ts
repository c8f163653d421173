import { type Static, Type } from '@sinclair/typebox';
import { IdOf, ListOf, Nullable, NullOr, PaginationQuery, PlatformRef } from '../../http/shared-schemas.js';

const Obj = (description?: string) => Type.Object({}, { additionalProperties: true, description });

/** PublishBatchScheduleSlot (spec), with its defaults. */
export const PublishBatchScheduleSlot = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 120 }),
    localTime: Type.String({
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
      description: '24-hour HH:MM',
    }),
    label: Type.Optional(Type.String({ maxLength: 200 })),
    timezone: Type.String({ minLength: 1, maxLength: 64, default: 'UTC' }),
    weekdays: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 7 }), { maxItems: 7 })),
    platform: Type.Optional(PlatformRef),
    channelAccountId: Type.Optional(Type.String({ minLength: 1 })),
    jitterSecondsMin: Type.Integer({
      minimum: -3600,
      maximum: 3600,
      default: -600,
    }),
    jitterSecondsMax: Type.Integer({
      minimum: -3600,
      maximum: 3600,
      default: 600,
    }),
    minGapMinutes: Type.Integer({ minimum: 0, maximum: 1440, default: 120 }),
    productCooldownMinutes: Type.Integer({
      minimum: 0,
      maximum: 43200,
      default: 240,
    }),
  },
  { $id: 'PublishBatchScheduleSlot', additionalProperties: false },
);

/** A batch policy (spec: PublishBatchPreviewRequest.policy). */
export const BatchPolicy = Type.Object(
  {
    slots: Type.Array(PublishBatchScheduleSlot, { minItems: 1, maxItems: 200 }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    horizonDays: Type.Integer({ minimum: 1, maximum: 60, default: 14 }),
  },
  { $id: 'PublishBatchPolicy', additionalProperties: false },
);
export type BatchPolicyT = Static<typeof BatchPolicy>;

export const ProfileChannelInput = Type.Object(
  {
    channelAccountId: Type.String({ minLength: 1, maxLength: 128 }),
    platform: PlatformRef,
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    enabled: Type.Optional(Type.Boolean()),
    settings: Type.Optional({ ...Obj(), default: {} }),
  },
  { $id: 'PublishingProfileChannelInput', additionalProperties: false },
);

export const PublishingProfileSaveRequest = Type.Object(
  {
    organizationId: Type.String({ minLength: 1, maxLength: 128 }),
    brandId: Type.String({ minLength: 1, maxLength: 128 }),
    name: Type.String({ minLength: 1, maxLength: 120 }),
    profileId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    description: Type.Optional(NullOr(Type.String({ maxLength: 500 }))),
    isDefault: Type.Optional(Type.Boolean({ default: false })),
    scheduleSettings: Type.Optional({ ...Obj('May hold batchPolicy, validated as a batch policy (slots, id, horizonDays).'), default: {} }),
    commentSettings: Type.Optional({ ...Obj(), default: {} }),
    channels: Type.Optional(
      Type.Array(ProfileChannelInput, { maxItems: 100, default: [], description: 'Replaces the channels of the profile.' }),
    ),
  },
  { $id: 'PublishingProfileSaveRequest', additionalProperties: false },
);

export const PublishingProfileChannel = Type.Object(
  {
    profileChannelId: Type.String(),
    profileId: Type.String(),
    organizationId: Type.String(),
    brandId: Type.String(),
    channelAccountId: Type.String(),
    platform: PlatformRef,
    channelDisplayName: Type.String(),
    channelHandle: Nullable(Type.String()),
    channelState: Type.String(),
    position: Type.Integer(),
    enabled: Type.Boolean(),
    settings: Obj(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'PublishingProfileChannel', additionalProperties: false },
);

export const PublishingProfile = Type.Object(
  {
    profileId: Type.String(),
    organizationId: Type.String(),
    brandId: Type.String(),
    brandName: Nullable(Type.String()),
    brandSlug: Nullable(Type.String()),
    name: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    isDefault: Type.Boolean(),
    scheduleSettings: Obj(),
    commentSettings: Obj(),
    createdAt: Type.String(),
    updatedAt: Type.String(),
    channels: Type.Array(PublishingProfileChannel),
  },
  { $id: 'PublishingProfile', additionalProperties: false },
);

export const PublishingProfileListQuery = Type.Object(
  {
    brandId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export const PublishingProfileParams = Type.Object({ profileId: IdOf('pro') }, { additionalProperties: false });
export const PublishingProfileList = ListOf(PublishingProfile, undefined, 'PublishingProfileList');

export type PublishingProfileT = Static<typeof PublishingProfile>;
export type PublishingProfileChannelT = Static<typeof PublishingProfileChannel>;
export type PublishingProfileSaveT = Static<typeof PublishingProfileSaveRequest>;
