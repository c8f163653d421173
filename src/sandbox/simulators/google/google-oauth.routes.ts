/**
 * Google OAuth 2.0 endpoints of the simulator: the consent screen (approves at once in the sandbox and
 * redirects with code and state), the token endpoint (authorization_code with PKCE, refresh_token)
 * and the revoke endpoint.
 */
import type { FastifyInstance } from 'fastify';
import { beginOperation, dropConnection, type SimContext } from './google-http.js';
import { type GoogleSimulatorState, s256 } from './google-state.js';

type Query = Record<string, string | undefined>;

function oauthError(error: string, description: string) {
  return { error, error_description: description };
}

export function registerGoogleOAuthRoutes(app: FastifyInstance, state: GoogleSimulatorState, ctx: SimContext): void {
  app.get('/oauth/o/oauth2/v2/auth', async (request, reply) => {
    const q = request.query as Query;
    ctx.ledger.record('authorize', request.method, request.url);
    const missing = ['client_id', 'redirect_uri', 'response_type', 'scope'].find((k) => !q[k]);
    if (missing) return reply.code(400).type('text/plain').send(`Error 400: invalid_request\nMissing required parameter: ${missing}`);
    if (q.response_type !== 'code') return reply.code(400).type('text/plain').send('Error 400: unsupported_response_type');
    if (state.client && q.client_id !== state.client.id) return reply.code(401).type('text/plain').send('Error 401: invalid_client');
    if (q.code_challenge && q.code_challenge_method !== 'S256') {
      return reply.code(400).type('text/plain').send('Error 400: invalid_request\nInvalid code_challenge_method');
    }
    const channel = (q.login_hint && state.channel(q.login_hint)) || state.defaultChannel;
    const scopes = (q.scope ?? '').split(' ').filter(Boolean);
    const code = state.newId('code');
    state.codes.set(code, {
      clientId: q.client_id ?? '',
      redirectUri: q.redirect_uri ?? '',
      scopes,
      channelId: channel.id,
      offline: q.access_type === 'offline',
      codeChallenge: q.code_challenge ?? null,
      expiresAt: Date.now() + 10 * 60_000,
      used: false,
    });
    const target = new URL(q.redirect_uri ?? '');
    target.searchParams.set('code', code);
    if (q.state !== undefined) target.searchParams.set('state', q.state);
    target.searchParams.set('scope', scopes.join(' '));
    return reply.redirect(target.toString(), 302);
  });

  app.post('/oauth/token', async (request, reply) => {
    const begun = await beginOperation(ctx, 'token', request, reply, 'oauth');
    if (begun === 'answered') return reply;
    const f = (request.body ?? {}) as Query;
    if (state.client && (f.client_id !== state.client.id || f.client_secret !== state.client.secret)) {
      return reply.code(401).send(oauthError('invalid_client', 'The OAuth client was not found.'));
    }
    if (!f.client_id || !f.client_secret) {
      return reply.code(400).send(oauthError('invalid_request', 'Could not determine client ID from request.'));
    }
    let answer: Record<string, unknown>;
    if (f.grant_type === 'authorization_code') {
      const grant = f.code ? state.codes.get(f.code) : undefined;
      if (!grant || grant.used || grant.expiresAt < Date.now()) {
        return reply.code(400).send(oauthError('invalid_grant', 'Malformed auth code.'));
      }
      if (grant.clientId !== f.client_id) return reply.code(400).send(oauthError('invalid_grant', 'Unauthorized'));
      if (grant.redirectUri !== f.redirect_uri) return reply.code(400).send(oauthError('redirect_uri_mismatch', 'Bad Request'));
      if (grant.codeChallenge) {
        if (!f.code_verifier) return reply.code(400).send(oauthError('invalid_grant', 'Missing code verifier.'));
        if (s256(f.code_verifier) !== grant.codeChallenge) {
          return reply.code(400).send(oauthError('invalid_grant', 'Invalid code verifier.'));
        }
      }
      grant.used = true;
      const issued = state.issueTokens(grant.channelId, grant.scopes, f.client_id, grant.offline);
      answer = {
        access_token: issued.accessToken,
        expires_in: state.accessTokenLifetimeSeconds,
        scope: grant.scopes.join(' '),
        token_type: 'Bearer',
      };
      if (issued.refreshToken) answer.refresh_token = issued.refreshToken;
    } else if (f.grant_type === 'refresh_token') {
      const grant = f.refresh_token ? state.refreshTokens.get(f.refresh_token) : undefined;
      if (!grant || grant.revoked || grant.clientId !== f.client_id) {
        return reply.code(400).send(oauthError('invalid_grant', 'Token has been expired or revoked.'));
      }
      answer = {
        access_token: state.refreshAccess(f.refresh_token ?? ''),
        expires_in: state.accessTokenLifetimeSeconds,
        scope: grant.scopes.join(' '),
        token_type: 'Bearer',
      };
    } else {
      return reply.code(400).send(oauthError('unsupported_grant_type', `Invalid grant_type: ${f.grant_type ?? ''}`));
    }
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.header('cache-control', 'no-store').send(answer);
  });

  app.post('/oauth/revoke', async (request, reply) => {
    const begun = await beginOperation(ctx, 'revoke', request, reply, 'oauth');
    if (begun === 'answered') return reply;
    const token = ((request.body ?? {}) as Query).token ?? (request.query as Query).token;
    if (!token || !state.revokeGrant(token)) {
      return reply.code(400).send(oauthError('invalid_token', 'Token expired or revoked'));
    }
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send({});
  });
}
