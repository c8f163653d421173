import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from '../../http/shared-schemas.js';

export const BrowserSessionStartRequest = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    returnTo: Type.Optional(
      Type.String({ maxLength: 2048, description: 'Where the dashboard goes after sign-in (a path or an approved origin URL).' }),
    ),
  },
  { $id: 'BrowserSessionStartRequest', additionalProperties: false },
);

export const BrowserSessionStartResponse = Type.Object(
  {
    authorizationCode: Type.String({ description: 'Single use, valid 60 s; send it only in the exchange body.' }),
    nonce: Type.String(),
    expiresAt: Timestamp(),
  },
  { $id: 'BrowserSessionStartResponse', additionalProperties: false },
);

export const BrowserSessionExchangeRequest = Type.Object(
  { authorizationCode: Type.String({ minLength: 1, maxLength: 256 }), nonce: Type.String({ minLength: 1, maxLength: 256 }) },
  { $id: 'BrowserSessionExchangeRequest', additionalProperties: false },
);

export const DashboardUser = Type.Object(
  { userId: Type.String(), email: Type.String(), displayName: Nullable(Type.String()) },
  { $id: 'DashboardUser', additionalProperties: false },
);

export const BrowserSessionExchangeResponse = Type.Object(
  {
    user: Type.Ref('DashboardUser'),
    organizationId: Type.String(),
    role: Type.Union([Type.Literal('member'), Type.Literal('admin'), Type.Literal('owner')]),
    expiresAt: Timestamp('Absolute expiry of the session (it also ends after the idle timeout).'),
  },
  { $id: 'BrowserSessionExchangeResponse', additionalProperties: false },
);

export const IdentityProviderInfo = Type.Object(
  {
    configured: Type.Boolean({ description: 'true when SERVICE_OIDC_ISSUER and SERVICE_OIDC_CLIENT_ID are set' }),
    name: Nullable(
      Type.String({ description: 'The provider name for the sign-in button (SERVICE_OIDC_PROVIDER_NAME); null when not configured.' }),
    ),
  },
  { $id: 'IdentityProviderInfo', additionalProperties: false },
);

export const IdentityProviderStartRequest = Type.Object(
  {
    returnTo: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'Where the dashboard goes after sign-in (a path or an approved origin URL); answered back by the callback.',
      }),
    ),
  },
  { $id: 'IdentityProviderStartRequest', additionalProperties: false },
);

export const IdentityProviderStartResponse = Type.Object(
  {
    authorizationUrl: Type.String({
      description: "The provider's authorization URL (code flow with PKCE S256, state and nonce); send the browser there.",
    }),
    expiresAt: Timestamp('The sign-in must come back by then (10 minutes).'),
  },
  { $id: 'IdentityProviderStartResponse', additionalProperties: false },
);

export const IdentityProviderCallbackRequest = Type.Object(
  {
    code: Type.String({ minLength: 1, maxLength: 2048, description: "The provider's authorization code (the redirect's `code`)." }),
    state: Type.String({ minLength: 1, maxLength: 512, description: "The redirect's `state`." }),
    iss: Type.Optional(
      Type.String({ maxLength: 2048, description: "The redirect's `iss` (RFC 9207), when the provider sends one; it must be the issuer." }),
    ),
  },
  { $id: 'IdentityProviderCallbackRequest', additionalProperties: false },
);

export const IdentityProviderCallbackResponse = Type.Object(
  {
    ...BrowserSessionExchangeResponse.properties,
    returnTo: Nullable(Type.String({ description: 'The returnTo given at start.' })),
  },
  { $id: 'IdentityProviderCallbackResponse', additionalProperties: false },
);

export const MeResponse = Type.Object(
  {
    user: Type.Ref('DashboardUser'),
    organization: Type.Object({ organizationId: Type.String(), name: Type.String() }, { additionalProperties: false }),
    role: Type.Union([Type.Literal('member'), Type.Literal('admin'), Type.Literal('owner')]),
    policies: Type.Array(Type.String(), {
      description:
        "The permission policies (the policy table's ids) this member's role reaches: the dashboard shows only the actions they allow.",
    }),
  },
  { $id: 'MeResponse', additionalProperties: false },
);
