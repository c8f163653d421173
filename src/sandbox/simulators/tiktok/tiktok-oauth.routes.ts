/**
 * Login Kit v2 endpoints of the TikTok simulator: authorize (approves at once and redirects back), token
 * exchange and refresh, revoke, and /v2/user/info/.
 */
import type { FastifyInstance } from 'fastify';
import { apiError, authorize, formBody, oauthError, ok, SimAnswer, type SimContext, simulate } from './tiktok-http.js';

const USER_FIELD_SCOPES: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  display_name: 'user.info.basic',
  username: 'user.info.profile',
  bio_description: 'user.info.profile',
  is_verified: 'user.info.profile',
  follower_count: 'user.info.stats',
};

export function registerTiktokOauthRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { state } = ctx;

  app.get(
    '/v2/auth/authorize/',
    simulate(ctx, 'authorize', 'oauth', (req) => {
      const q = req.query as Record<string, string | undefined>;
      if (q.client_key !== state.clientKey) throw oauthError(400, 'invalid_client', 'client_key is unknown.');
      if (q.response_type !== 'code') throw oauthError(400, 'unsupported_response_type', 'response_type must be code.');
      if (!q.redirect_uri) throw oauthError(400, 'invalid_request', 'redirect_uri is required.');
      const scopes = (q.scope ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (scopes.length === 0) throw oauthError(400, 'invalid_scope', 'scope is required.');
      // sandbox behaviour: the creator approves at once; sandbox_user picks which fake creator logs in
      const user = state.user(q.sandbox_user || undefined);
      const code = state.issueCode(user.openId, scopes, q.redirect_uri);
      const target = new URL(q.redirect_uri);
      target.searchParams.set('code', code);
      target.searchParams.set('scopes', scopes.join(','));
      if (q.state !== undefined) target.searchParams.set('state', q.state);
      return { status: 302, headers: { location: target.toString() } };
    }),
  );

  app.post(
    '/v2/oauth/token/',
    simulate(ctx, 'token', 'oauth', (req) => {
      const f = formBody(req);
      if (f.client_key !== state.clientKey || f.client_secret !== state.clientSecret) {
        throw oauthError(401, 'invalid_client', 'Client key or secret is invalid.');
      }
      let openId: string;
      let scopes: string[];
      let keepRefresh: string | undefined;
      if (f.grant_type === 'authorization_code') {
        const code = state.codes.get(f.code ?? '');
        state.codes.delete(f.code ?? '');
        if (!code || code.expiresAt < Date.now()) throw oauthError(400, 'invalid_grant', 'Authorization code is expired.');
        if (code.redirectUri !== f.redirect_uri) throw oauthError(400, 'invalid_grant', 'redirect_uri does not match.');
        openId = code.openId;
        scopes = code.scopes;
      } else if (f.grant_type === 'refresh_token') {
        const refresh = state.refreshTokens.get(f.refresh_token ?? '');
        if (!refresh || refresh.revoked || refresh.expiresAt < Date.now()) {
          throw oauthError(400, 'invalid_grant', 'Refresh token is invalid or expired.');
        }
        openId = refresh.openId;
        scopes = refresh.scopes;
        keepRefresh = f.refresh_token;
      } else {
        throw oauthError(400, 'unsupported_grant_type', 'grant_type is not supported.');
      }
      const issued = state.issueTokens(openId, scopes, keepRefresh);
      const refreshExpiresAt = state.refreshTokens.get(issued.refreshToken)?.expiresAt ?? Date.now();
      return {
        status: 200,
        body: {
          access_token: issued.accessToken,
          expires_in: state.accessTokenTtlSeconds,
          open_id: openId,
          refresh_expires_in: Math.max(0, Math.floor((refreshExpiresAt - Date.now()) / 1000)),
          refresh_token: issued.refreshToken,
          scope: scopes.join(','),
          token_type: 'Bearer',
        },
      };
    }),
  );

  app.post(
    '/v2/oauth/revoke/',
    simulate(ctx, 'revoke', 'oauth', (req) => {
      const f = formBody(req);
      if (f.client_key !== state.clientKey || f.client_secret !== state.clientSecret) {
        throw oauthError(401, 'invalid_client', 'Client key or secret is invalid.');
      }
      const token = state.tokens.get(f.token ?? '');
      if (!token) throw oauthError(400, 'invalid_request', 'token is invalid.');
      // revoking ends the whole grant: every token of the user for this app
      for (const t of state.tokens.values()) if (t.openId === token.openId) t.revoked = true;
      for (const r of state.refreshTokens.values()) if (r.openId === token.openId) r.revoked = true;
      return { status: 200, body: {} };
    }),
  );

  app.get(
    '/v2/user/info/',
    simulate(ctx, 'user_info', 'api', (req) => {
      const token = authorize(ctx, req, 'user.info.basic');
      const fields = String((req.query as Record<string, string>).fields ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (fields.length === 0) throw apiError(400, 'invalid_params', 'fields is required.');
      const user = state.users.get(token.openId);
      if (!user) throw new SimAnswer({ status: 404, body: {} });
      const values: Record<string, unknown> = {
        open_id: user.openId,
        union_id: user.unionId,
        avatar_url: user.avatarUrl,
        display_name: user.displayName,
        username: user.username,
        bio_description: '',
        is_verified: false,
        follower_count: 0,
      };
      const out: Record<string, unknown> = {};
      for (const field of fields) {
        const scope = USER_FIELD_SCOPES[field];
        if (!scope) throw apiError(400, 'invalid_params', `Unknown field: ${field}.`);
        if (!token.scopes.includes(scope)) {
          throw apiError(400, 'scope_permission_missed', `Field ${field} needs the ${scope} scope.`);
        }
        out[field] = values[field];
      }
      return ok({ user: out });
    }),
  );
}
