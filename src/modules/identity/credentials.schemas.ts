import { Type } from '@sinclair/typebox';
import { PUBLIC_SCOPES } from '../../http/principal.js';
import { Nullable, PaginationQuery, Timestamp } from '../../http/shared-schemas.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const API_KEY_ID_PREFIX = 'key';
export const OAUTH_APP_ID_PREFIX = 'oap';
export const OAUTH_GRANT_ID_PREFIX = 'oag';

const Scope = Type.Union(
  PUBLIC_SCOPES.map((s) => Type.Literal(s)),
  { description: 'A public API scope.' },
);
const Scopes = Type.Array(Scope, { minItems: 1, maxItems: PUBLIC_SCOPES.length, uniqueItems: true });

export const ListQuery = Type.Object(PaginationQuery, { additionalProperties: false });

export const ApiKey = Type.Object(
  {
    apiKeyId: Type.String(),
    name: Type.String(),
    prefix: Type.String({ description: 'The visible start of the key; the key itself is shown only once.' }),
    scopes: Type.Array(Type.String()),
    lastUsedAt: Nullable(Timestamp()),
    revokedAt: Nullable(Timestamp()),
    expiresAt: Nullable(Timestamp()),
    createdAt: Timestamp(),
  },
  { $id: 'ApiKey', additionalProperties: false },
);
export const ApiKeyList = Type.Object(
  { data: Type.Array(Type.Ref('ApiKey')), nextCursor: Nullable(Type.String()) },
  { $id: 'ApiKeyList', additionalProperties: false },
);
export const ApiKeyCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    scopes: Type.Optional(Scopes),
    expiresAt: Type.Optional(Timestamp('Optional expiry (in the future).')),
  },
  { $id: 'ApiKeyCreateRequest', additionalProperties: false },
);
export const ApiKeyCreated = Type.Object(
  { apiKey: Type.Ref('ApiKey'), secret: Type.String({ description: 'The key; shown only in this answer.' }) },
  { $id: 'ApiKeyCreated', additionalProperties: false },
);
export const ApiKeyParams = Type.Object(
  { apiKeyId: Type.String({ pattern: `^${API_KEY_ID_PREFIX}_${ULID}$`, description: `${API_KEY_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);

const RedirectUri = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'An absolute https URL (http only for loopback hosts); matched exactly.',
});

export const OAuthApp = Type.Object(
  {
    oauthAppId: Type.String(),
    name: Type.String(),
    clientId: Type.String(),
    redirectUris: Type.Array(Type.String()),
    scopes: Type.Array(Type.String()),
    clientSecretSource: Type.Union([Type.Literal('stored_hash'), Type.Literal('reference'), Type.Literal('none')], {
      description:
        'stored_hash: the secret was generated and shown once (only its hash is stored); reference: the operator provisioned it with the CLI ' +
        '(an entry of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS); none: the app has no secret yet (its former tenant-named reference was removed): rotate it.',
    }),
    clientSecretRef: Nullable(
      Type.String({
        description: 'The operator-provisioned reference (env:NAME, an entry of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS), never the secret.',
      }),
    ),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'OAuthApp', additionalProperties: false },
);
export const OAuthAppList = Type.Object(
  { data: Type.Array(Type.Ref('OAuthApp')), nextCursor: Nullable(Type.String()) },
  { $id: 'OAuthAppList', additionalProperties: false },
);
export const OAuthAppCreateRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 120 }),
    redirectUris: Type.Array(RedirectUri, { minItems: 1, maxItems: 10, uniqueItems: true }),
    scopes: Scopes,
  },
  {
    $id: 'OAuthAppCreateRequest',
    additionalProperties: false,
    description: 'The service generates the client secret (shown once, stored hashed); a secret reference is an operator feature (CLI).',
  },
);
export const OAuthAppUpdateRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    redirectUris: Type.Optional(Type.Array(RedirectUri, { minItems: 1, maxItems: 10, uniqueItems: true })),
    scopes: Type.Optional(Scopes),
    rotateSecret: Type.Optional(
      Type.Boolean({
        description:
          'Generate a new client secret (shown once); the old one stops working. Refused (400) for an app whose secret the operator provisions (clientSecretSource reference).',
      }),
    ),
  },
  { $id: 'OAuthAppUpdateRequest', additionalProperties: false, minProperties: 1 },
);
export const OAuthAppWithSecret = Type.Object(
  {
    oauthApp: Type.Ref('OAuthApp'),
    clientSecret: Nullable(Type.String({ description: 'Shown only when generated (create or rotateSecret); null otherwise.' })),
  },
  { $id: 'OAuthAppWithSecret', additionalProperties: false },
);
export const OAuthAppParams = Type.Object(
  { oauthAppId: Type.String({ pattern: `^${OAUTH_APP_ID_PREFIX}_${ULID}$`, description: `${OAUTH_APP_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);

export const OAuthGrant = Type.Object(
  {
    authorizationId: Type.String(),
    oauthAppId: Type.String(),
    clientId: Type.String(),
    appName: Type.String(),
    userId: Type.String(),
    scopes: Type.Array(Type.String()),
    createdAt: Timestamp(),
    revokedAt: Nullable(Timestamp()),
  },
  { $id: 'OAuthGrant', additionalProperties: false },
);
export const OAuthGrantList = Type.Object(
  { data: Type.Array(Type.Ref('OAuthGrant')), nextCursor: Nullable(Type.String()) },
  { $id: 'OAuthGrantList', additionalProperties: false },
);
export const OAuthGrantParams = Type.Object(
  { authorizationId: Type.String({ pattern: `^${OAUTH_GRANT_ID_PREFIX}_${ULID}$`, description: `${OAUTH_GRANT_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);
