/**
 * Schemas shared by every area: ErrorResponse, list envelopes, pagination query, and the public API's
 * shapes several areas' schemas use (platforms, MediaInput, the batch policy).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CATALOG, type ErrorCode } from '../platform/errors.js';
import { PLATFORMS, type Platform } from '../platform/social-platforms.js';

export const ErrorResponse = Type.Object(
  {
    error: Type.String({ minLength: 1, description: 'error code' }),
    message: Type.String({ minLength: 1 }),
    fields: Type.Optional(
      Type.Array(
        Type.Object(
          {
            path: Type.Array(Type.String(), { description: 'The property path (the missing or unknown property included).' }),
            source: Type.Optional(Type.Union([Type.Literal('body'), Type.Literal('query'), Type.Literal('params')])),
            message: Type.Optional(
              Type.String({ description: 'What is wrong, naming what is allowed: the enum values, the bounds, the allowed properties.' }),
            ),
            allowed: Type.Optional(Type.Array(Type.Unknown(), { description: 'The values (or property names) allowed at the path.' })),
          },
          { additionalProperties: true },
        ),
        { description: 'Validation detail: one entry per problem.' },
      ),
    ),
    requestId: Type.Optional(Type.String({ minLength: 1 })),
  },
  { $id: 'ErrorResponse', additionalProperties: true, description: 'Every error of the publishing API.' },
);

export const PaginationQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size (1-100, default 50).' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Opaque cursor from a previous page (nextCursor).' })),
};

/** A list envelope; a list of `Type.Ref('X')` is the component `XList` unless named otherwise. */
export const ListOf = <T extends TSchema>(item: T, description?: string, name?: string) =>
  Type.Object(
    {
      data: Type.Array(item),
      nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Cursor of the next page; null on the last page.' }),
    },
    { additionalProperties: false, description, $id: name ?? (typeof item.$ref === 'string' ? `${item.$ref}List` : undefined) },
  );

/**
 * The codes an `errorResponses` entry was made from (a symbol: neither validation nor the document
 * sees it), so the route-security hook (route-security.ts) can add a route's authentication errors to them.
 */
export const ERROR_CODES = Symbol('errorCodes');

/** Response schemas for the given error codes, grouped by status, each described by its codes (listed once, in order). */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOG[code].status;
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  const out: Record<number, TSchema> = {};
  for (const [status, list] of byStatus) {
    out[status] = Object.assign(Type.Ref('ErrorResponse', { description: `Error codes: ${list.join(', ')}.` }), { [ERROR_CODES]: list });
  }
  return out;
}

/** Errors every authenticated public route can answer (added to `config.auth` routes by route-security.ts). */
export const PUBLIC_AUTH_ERRORS: ErrorCode[] = [
  'public_api_token_required',
  'public_api_token_forbidden',
  'public_api_disabled',
  'request_origin_not_allowed',
  'public_api_rate_limited',
  'invalid_public_api_rate_limit_store',
  'redis_url_required',
  'internal_server_error',
];

/** Crockford base-32 ULID, as in every id this service issues (`<prefix>_<ULID>`). */
const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
/** The format of an id issued with the given prefix; path ids always carry it (malformed ids answer 400). */
export const IdOf = (prefix: string, description?: string) =>
  Type.String({ pattern: `^${prefix}_${ULID_PATTERN}$`, description: description ?? `${prefix}_<ULID>` });

export const Timestamp = (description?: string) => Type.String({ format: 'date-time', description });
export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

/** The refusals a publicOrDashboard route adds to the public ones (added by route-security.ts). */
export const SESSION_AUTH_ERRORS: ErrorCode[] = ['dashboard_session_required', 'permission_denied'];

// ---- shapes several areas' schemas share (one definition: validation and the OpenAPI document)

/** A union of string literals. */
export const Literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );

/** A platform as a union of literals (publish plans and batches). */
export const PlatformT = Literals(PLATFORMS);
/** A platform as a string enum (channels, profiles, batch policy slots). */
export const PlatformRef = Type.Unsafe<Platform>(Type.String({ enum: [...PLATFORMS], description: 'Platform' }));

/** A media item given by the client (publish plans and batch items). */
export const MediaInput = Type.Object(
  {
    mediaLibraryItemId: Type.Optional(Type.String()),
    kind: Literals(['image', 'video', 'gif']),
    url: Type.String(),
    mimeType: Type.Optional(Type.String()),
    bytes: Type.Optional(Type.Number()),
    fileSizeBytes: Type.Optional(Type.Number()),
    durationSeconds: Type.Optional(Type.Number()),
    thumbnailUrl: Type.Optional(Type.String()),
    altText: Type.Optional(Type.String()),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'MediaInput', additionalProperties: true },
);
/** Shared component (registered at the root): plan bodies reference it, so a union of plans names it once. */
export const MediaInputRef = Type.Unsafe<Static<typeof MediaInput>>(Type.Ref('MediaInput'));

/** PublishBatchScheduleSlot (spec), with its defaults. */
const PublishBatchScheduleSlot = Type.Object(
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

/** A batch policy (spec: PublishBatchPreviewRequest.policy): publishing profiles save one, batches take one. */
export const BatchPolicy = Type.Object(
  {
    slots: Type.Array(PublishBatchScheduleSlot, { minItems: 1, maxItems: 200 }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    horizonDays: Type.Integer({ minimum: 1, maximum: 60, default: 14 }),
  },
  { $id: 'PublishBatchPolicy', additionalProperties: false },
);
export type BatchPolicyT = Static<typeof BatchPolicy>;

/** Request-side nullable: null listed first so type coercion never turns null into "". */
export const NullOr = <T extends TSchema>(s: T) => Type.Union([Type.Null(), s]);
