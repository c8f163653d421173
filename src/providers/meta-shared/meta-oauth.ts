/**
 * OAuth for the Meta family. Meta has no refresh tokens: a short-lived user token from the code exchange
 * is swapped for a long-lived one (about 60 days) and "refresh" extends a long-lived token.
 *
 * - Facebook Login: https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow
 *   and https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived
 *   (grant_type=fb_exchange_token), revoke: DELETE /me/permissions
 *   (https://developers.facebook.com/docs/facebook-login/guides/permissions/request-revoke)
 * - Business Login for Instagram:
 *   https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 *   (api.instagram.com/oauth/authorize and /oauth/access_token, graph.instagram.com/access_token with
 *   ig_exchange_token, /refresh_access_token with ig_refresh_token)
 * - Threads: https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions and
 *   https://developers.facebook.com/docs/threads/get-started/long-lived-tokens (th_exchange_token,
 *   th_refresh_token)
 */
import { type OAuthTokens, type Platform, type ProviderAppConfig, ProviderError, type ProviderOAuth } from '../provider.js';
import { graphClient, graphRoot, trimBase } from './graph-http.js';

interface TokenAnswer {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  user_id?: string | number;
  permissions?: string | string[];
}

function appCredentials(platform: Platform, config: ProviderAppConfig): { clientId: string; clientSecret: string } {
  if (!config.clientId || !config.clientSecret) {
    throw new ProviderError({
      platform,
      category: 'platform_rejected',
      message: `${platform} app credentials are not configured`,
    });
  }
  return { clientId: config.clientId, clientSecret: config.clientSecret };
}

function toTokens(platform: Platform, answer: TokenAnswer, scopes: string[], extra: Record<string, string> = {}): OAuthTokens {
  if (!answer.access_token) {
    throw new ProviderError({
      platform,
      category: 'platform_rejected',
      message: `${platform} token answer had no access_token`,
    });
  }
  if (answer.user_id !== undefined) extra.user_id = String(answer.user_id);
  return {
    accessToken: answer.access_token,
    refreshToken: null,
    expiresAt: typeof answer.expires_in === 'number' ? new Date(Date.now() + answer.expires_in * 1000) : null,
    refreshTokenExpiresAt: null,
    scopes,
    extra,
  };
}

function splitScopes(value: string | string[] | undefined): string[] {
  if (!value) return [];
  const list = Array.isArray(value) ? value : value.split(/[\s,]+/);
  return list.map((s) => s.trim()).filter(Boolean);
}

function authorizeUrl(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/** Facebook Login for Business: used by facebook_page and instagram_business. */
export function facebookLoginOAuth(platform: Platform, config: ProviderAppConfig, defaultScopes: string[]): ProviderOAuth {
  const graph = graphClient(platform, config.timeoutMs);
  const api = trimBase(config.apiBaseUrl);
  const longLived = async (token: string): Promise<TokenAnswer> => {
    const app = appCredentials(platform, config);
    return graph.get<TokenAnswer>(`${api}/oauth/access_token`, null, {
      grant_type: 'fb_exchange_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      fb_exchange_token: token,
    });
  };
  const grantedScopes = async (token: string): Promise<string[]> => {
    let perms: { data?: Array<{ permission: string; status: string }> };
    try {
      perms = await graph.get(`${api}/me/permissions`, { accessToken: token });
    } catch (err) {
      // a Page token has no /me/permissions edge; the token itself is still valid
      if (err instanceof ProviderError && err.category === 'user_content') return [];
      throw err;
    }
    return (perms.data ?? []).filter((p) => p.status === 'granted').map((p) => p.permission);
  };
  return {
    supportsPkce: false,
    supportsRefresh: true,
    supportsRevoke: true,
    defaultScopes,
    authorizationUrl(input) {
      return authorizeUrl(`${trimBase(config.authBaseUrl)}/dialog/oauth`, {
        client_id: appCredentials(platform, config).clientId,
        redirect_uri: input.redirectUri,
        state: input.state,
        response_type: 'code',
        scope: (input.scopes.length ? input.scopes : defaultScopes).join(','),
      });
    },
    async exchangeCode(input) {
      const app = appCredentials(platform, config);
      const short = await graph.get<TokenAnswer>(`${api}/oauth/access_token`, null, {
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: input.redirectUri,
        code: input.code,
      });
      const long = await longLived(short.access_token ?? '');
      return toTokens(platform, long, await grantedScopes(long.access_token ?? ''));
    },
    async refresh(input) {
      const long = await longLived(input.accessToken);
      return toTokens(platform, long, await grantedScopes(long.access_token ?? ''));
    },
    async revoke(input) {
      await graph.del(`${api}/me/permissions`, {
        accessToken: input.accessToken,
      });
    },
  };
}

/** Shared shape of the Instagram Login and Threads flows (same steps, different hosts and grant names). */
function shortThenLongOAuth(
  platform: Platform,
  config: ProviderAppConfig,
  defaultScopes: string[],
  opts: {
    authorizePath: string;
    tokenUrl: string;
    exchangeGrant: string;
    refreshGrant: string;
  },
): ProviderOAuth {
  const graph = graphClient(platform, config.timeoutMs);
  const root = graphRoot(config.apiBaseUrl);
  return {
    supportsPkce: false,
    supportsRefresh: true,
    // neither API documents a token revocation endpoint; users remove the app in their settings
    supportsRevoke: false,
    defaultScopes,
    authorizationUrl(input) {
      return authorizeUrl(`${trimBase(config.authBaseUrl)}${opts.authorizePath}`, {
        client_id: appCredentials(platform, config).clientId,
        redirect_uri: input.redirectUri,
        scope: (input.scopes.length ? input.scopes : defaultScopes).join(','),
        response_type: 'code',
        state: input.state,
      });
    },
    async exchangeCode(input) {
      const app = appCredentials(platform, config);
      const raw = await graph.post<TokenAnswer & { data?: TokenAnswer[] }>(
        opts.tokenUrl,
        null,
        {
          client_id: app.clientId,
          client_secret: app.clientSecret,
          grant_type: 'authorization_code',
          redirect_uri: input.redirectUri,
          code: input.code,
        },
        true,
      );
      // Instagram answers either flat or wrapped in data[]
      const short = raw.data?.[0] ?? raw;
      const long = await graph.get<TokenAnswer>(`${root}/access_token`, null, {
        grant_type: opts.exchangeGrant,
        client_secret: app.clientSecret,
        access_token: short.access_token,
      });
      const scopes = splitScopes(short.permissions);
      return toTokens(platform, { ...long, user_id: short.user_id }, scopes.length ? scopes : defaultScopes);
    },
    async refresh(input) {
      const long = await graph.get<TokenAnswer>(`${root}/refresh_access_token`, null, {
        grant_type: opts.refreshGrant,
        access_token: input.accessToken,
      });
      return toTokens(platform, long, defaultScopes);
    },
    async revoke() {
      // nothing to call: see supportsRevoke
    },
  };
}

export function instagramLoginOAuth(config: ProviderAppConfig, defaultScopes: string[]): ProviderOAuth {
  return shortThenLongOAuth('instagram_standalone', config, defaultScopes, {
    authorizePath: '/oauth/authorize',
    tokenUrl: `${trimBase(config.authBaseUrl)}/oauth/access_token`,
    exchangeGrant: 'ig_exchange_token',
    refreshGrant: 'ig_refresh_token',
  });
}

export function threadsOAuth(config: ProviderAppConfig, defaultScopes: string[]): ProviderOAuth {
  return shortThenLongOAuth('threads', config, defaultScopes, {
    authorizePath: '/oauth/authorize',
    tokenUrl: `${graphRoot(config.apiBaseUrl)}/oauth/access_token`,
    exchangeGrant: 'th_exchange_token',
    refreshGrant: 'th_refresh_token',
  });
}
