/**
 * OAuth 2.0 (authorization code with PKCE) endpoints of the X simulator: authorize (approves at once and
 * redirects back), token (code exchange with code_verifier check, rotating refresh), and revoke.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formBody, oauthError, simulate, type XSimContext } from './x-http.js';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function registerXOauthRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state } = ctx;

  /** Confidential clients send HTTP Basic; public clients send client_id in the form. */
  function checkClient(req: FastifyRequest, form: Record<string, string>): void {
    if (state.clientSecret !== null) {
      const header = req.headers.authorization ?? '';
      const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
      const expected = `${state.clientId}:${state.clientSecret}`;
      if (!sameSecret(decoded, expected)) throw oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
    } else if (form.client_id !== state.clientId) {
      throw oauthError(400, 'invalid_request', 'Missing required parameter [client_id].');
    }
  }

  app.get(
    '/i/oauth2/authorize',
    simulate(ctx, 'authorize', (req) => {
      const q = req.query as Record<string, string | undefined>;
      if (q.client_id !== state.clientId) throw oauthError(400, 'invalid_request', 'Unknown client_id.');
      if (q.response_type !== 'code' || !q.redirect_uri || !q.state || !q.code_challenge) {
        throw oauthError(400, 'invalid_request', 'response_type=code, redirect_uri, state and code_challenge are required.');
      }
      const method = q.code_challenge_method ?? 'plain';
      if (method !== 'S256' && method !== 'plain') throw oauthError(400, 'invalid_request', 'Unsupported code_challenge_method.');
      const scopes = (q.scope ?? '').split(' ').filter(Boolean);
      if (scopes.length === 0) throw oauthError(400, 'invalid_scope', 'scope is required.');
      // sandbox behaviour: the account approves at once; sandbox_user picks which fake account logs in
      const user = state.user(q.sandbox_user || undefined);
      const code = Buffer.from(`${user.id}:${Date.now()}:${Math.random()}`).toString('base64url');
      state.codes.set(code, {
        userId: user.id,
        scopes,
        redirectUri: q.redirect_uri,
        challenge: q.code_challenge,
        method,
        expiresAt: Date.now() + 30_000,
      });
      const target = new URL(q.redirect_uri);
      target.searchParams.set('state', q.state);
      target.searchParams.set('code', code);
      return { status: 302, headers: { location: target.toString() } };
    }),
  );

  app.post(
    '/2/oauth2/token',
    simulate(ctx, 'token', (req) => {
      const f = formBody(req);
      checkClient(req, f);
      let userId: string;
      let scopes: string[];
      if (f.grant_type === 'authorization_code') {
        const code = state.codes.get(f.code ?? '');
        state.codes.delete(f.code ?? '');
        if (!code || code.expiresAt < Date.now() || code.redirectUri !== f.redirect_uri) {
          throw oauthError(400, 'invalid_request', 'Value passed for the authorization code was invalid.');
        }
        const verifier = f.code_verifier ?? '';
        const derived = code.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
        if (!verifier || derived !== code.challenge)
          throw oauthError(400, 'invalid_request', 'Value passed for the code_verifier was invalid.');
        userId = code.userId;
        scopes = code.scopes;
      } else if (f.grant_type === 'refresh_token') {
        const refresh = state.refreshTokens.get(f.refresh_token ?? '');
        // refresh tokens rotate: each one can be used once
        if (!refresh || refresh.used || refresh.revoked)
          throw oauthError(400, 'invalid_request', 'Value passed for the token was invalid.');
        refresh.used = true;
        userId = refresh.userId;
        scopes = refresh.scopes;
      } else {
        throw oauthError(400, 'invalid_request', 'Unsupported grant_type.');
      }
      const issued = state.issueTokens(userId, scopes);
      const body: Record<string, unknown> = {
        token_type: 'bearer',
        expires_in: state.accessTokenTtlSeconds,
        access_token: issued.accessToken,
        scope: scopes.join(' '),
      };
      if (issued.refreshToken) body.refresh_token = issued.refreshToken;
      return { status: 200, body };
    }),
  );

  app.post(
    '/2/oauth2/revoke',
    simulate(ctx, 'revoke', (req) => {
      const f = formBody(req);
      checkClient(req, f);
      const token = f.token ?? '';
      const access = state.tokens.get(token);
      if (access) access.revoked = true;
      const refresh = state.refreshTokens.get(token);
      if (refresh) refresh.revoked = true;
      return { status: 200, body: { revoked: true } };
    }),
  );
}
