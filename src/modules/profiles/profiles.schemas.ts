import { type Static, Type } from '@sinclair/typebox';
import { IdOf, ListOf, Nullable, NullOr, PaginationQuery, PlatformRef } from '../../http/shared-schemas.js';

const Obj = (description?: string) => Type.Object({}, { additionalProperties: true, description });

export { BatchPolicy, type BatchPolicyT } from '../../http/shared-schemas.js';

const ProfileChannelInput = Type.Object(
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
    scheduleSettings: Type.Optional({
      ...Obj(
        'May hold batchPolicy, validated as a batch policy (slots, id, horizonDays), and maxLatenessMinutes (integer 0-10080 or null): the lateness limit of the jobs created with this profile that do not set their own.',
      ),
      default: {},
    }),
    commentSettings: Type.Optional({ ...Obj(), default: {} }),
    channels: Type.Optional(
      Type.Array(ProfileChannelInput, { maxItems: 100, default: [], description: 'Replaces the channels of the profile.' }),
    ),
  },
  { $id: 'PublishingProfileSaveRequest', additionalProperties: false },
);

const PublishingProfileChannel = Type.Object(
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
export type PublishingProfileSaveT = Static<typeof PublishingProfileSaveRequest>;
