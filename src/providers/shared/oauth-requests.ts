/** Pieces of the OAuth 2.0 authorization-code flow that several adapters build the same way. */

import { type Platform, ProviderError, type ProviderOAuth } from '../provider.js';

type AuthorizationUrlInput = Parameters<ProviderOAuth['authorizationUrl']>[0];

/**
 * The authorization request's query: client_id, redirect_uri, response_type=code, the requested scopes
 * (or the defaults) joined by `separator`, then `extra` and state, in that order.
 */
export function authorizeQuery(
  clientId: string,
  input: AuthorizationUrlInput,
  defaultScopes: readonly string[],
  separator: string,
  extra: Record<string, string> = {},
): URLSearchParams {
  return new URLSearchParams({
    client_id: clientId,
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: (input.scopes.length > 0 ? input.scopes : defaultScopes).join(separator),
    ...extra,
    state: input.state,
  });
}

/** The stored refresh token; without one the user must connect again (auth_expired). */
export function requireRefreshToken(platform: Platform, refreshToken: string | null, message: string): string {
  if (!refreshToken) throw new ProviderError({ platform, category: 'auth_expired', message });
  return refreshToken;
}

/** A token endpoint's answer as given, unless it carries no access_token (a transient fault of the platform). */
export function requireAccessTokenAnswer<T extends { access_token?: unknown }>(
  platform: Platform,
  body: T | null | undefined,
  name: string,
): T {
  if (!body || typeof body.access_token !== 'string') {
    throw new ProviderError({ platform, category: 'transient', message: `${name} token answer has no access_token` });
  }
  return body;
}
