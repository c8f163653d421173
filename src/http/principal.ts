/** The authenticated caller (specification: Principal). Dashboard and internal principals come later. */
export type Principal =
  | { kind: 'api_key'; organizationId: string; subjectId: string; scopes: string[] }
  | {
      kind: 'oauth_access_token';
      organizationId: string;
      subjectId: string;
      authorizationId: string;
      oauthAppId: string;
      userId: string;
      clientId: string;
      scopes: string[];
    };

/** Every public scope (ROUTES.md). A bootstrap key carries all of them. */
export const PUBLIC_SCOPES = [
  'brands:read',
  'assets:read',
  'media:read',
  'media:write',
  'channels:read',
  'channels:write',
  'publish:read',
  'publish:write',
  'analytics:read',
  'analytics:write',
  'comments:read',
  'comments:write',
  'webhooks:read',
  'webhooks:write',
  'automations:read',
  'automations:write',
] as const;
type PublicScope = (typeof PUBLIC_SCOPES)[number];

/** A route's scope requirement: a scope, or `any` for any valid credential (capabilities). */
export type ScopeRequirement = PublicScope | 'any';

export function hasScope(principal: Principal, required: ScopeRequirement): boolean {
  return required === 'any' || principal.scopes.includes(required);
}
