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
