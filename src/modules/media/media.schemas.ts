/** TypeBox shapes of the media library API (specification: MediaLibraryItem, MediaUploadRequest, MediaImportRequest). */
import { type Static, Type } from '@sinclair/typebox';
import { IdOf, ListOf, Nullable, PaginationQuery } from '../../http/shared-schemas.js';

export const MAX_IMPORT_BYTES = 33_554_432;

const MediaKindSchema = Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('gif')]);

export const MediaLibraryItem = Type.Object(
  {
    mediaLibraryItemId: Type.String(),
    organizationId: Type.String(),
    brandId: Nullable(Type.String()),
    kind: MediaKindSchema,
    mimeType: Nullable(Type.String({ description: 'decided from the bytes, never from the name or the client' })),
    publicUrl: Nullable(
      Type.String({ description: 'signed, expiring content URL (or the bucket address when a public bucket base is configured)' }),
    ),
    contentAvailable: Type.Boolean({ description: 'false once the item is being deleted' }),
    sha256: Nullable(Type.String()),
    bytes: Type.Optional(Nullable(Type.Integer())),
    lifecycleState: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('deleting')])),
    metadata: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'width and height (images, video), durationSeconds, codecs, videoCodec, audioCodec (MP4), frameCount and animated (GIF), altText, fileName, sourceUrl',
      },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'MediaLibraryItem', additionalProperties: false },
);

export const MediaUploadRequest = Type.Object(
  {
    // no minLength: the validator would count the characters of a string of hundreds of megabytes
    dataBase64: Type.String({ description: 'raw base64 or a data URL; supported media: JPEG, PNG, GIF, WebP, AVIF, MP4' }),
    organizationId: Type.Optional(Type.String({ description: 'must be the principal organization when given' })),
    brandId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    fileName: Type.Optional(Type.String({ maxLength: 255 })),
    altText: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { $id: 'MediaUploadRequest', additionalProperties: false },
);

export const MediaImportRequest = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096, description: 'remote media address (http or https)' }),
    organizationId: Type.Optional(Type.String({ description: 'must be the principal organization when given' })),
    brandId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    altText: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
    maxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMPORT_BYTES })),
  },
  { $id: 'MediaImportRequest', additionalProperties: false },
);

export const MediaImportDryRun = Type.Object(
  {
    mode: Type.Literal('dry_run'),
    wouldImport: Type.Boolean(),
    url: Type.String(),
    host: Type.String(),
    maxBytes: Type.Integer(),
    brandId: Nullable(Type.String()),
    notes: Type.Array(Type.String()),
  },
  { $id: 'MediaImportDryRun', additionalProperties: false, description: 'What a real import would do; nothing was fetched or stored.' },
);

export const MediaListQuery = Type.Object(
  {
    brandId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    kind: Type.Optional(MediaKindSchema),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);

export const MediaParams = Type.Object({ mediaLibraryItemId: IdOf('med') }, { additionalProperties: false });

export const MediaContentQuery = Type.Object(
  {
    org: Type.Optional(Type.String({ maxLength: 64, description: 'signed URL: the organization of the item' })),
    expires: Type.Optional(Type.String({ maxLength: 16, description: 'signed URL expiry (Unix seconds)' })),
    signature: Type.Optional(Type.String({ maxLength: 128, description: 'signed URL signature' })),
  },
  { additionalProperties: false },
);

export const MediaList = ListOf(Type.Ref('MediaLibraryItem'), undefined, 'MediaLibraryItemList');

export type MediaLibraryItemT = Static<typeof MediaLibraryItem>;
export type MediaUploadRequestT = Static<typeof MediaUploadRequest>;
export type MediaImportRequestT = Static<typeof MediaImportRequest>;
export type MediaImportDryRunT = Static<typeof MediaImportDryRun>;
export type MediaListQueryT = Static<typeof MediaListQuery>;
