/**
 * Pinterest OAuth endpoints of the simulator: the consent screen (approves at once in the sandbox and
 * redirects with code and state) and POST /v5/oauth/token with HTTP Basic client authentication for
 * the authorization_code and refresh_token grants.
 */
import type { FastifyInstance } from 'fastify';
import { beginOperation, dropConnection, PIN_ERRORS, type PinSimContext, sendPinError } from './pinterest-http.js';
import type { PinterestSimulatorState } from './pinterest-state.js';

type Fields = Record<string, string | undefined>;

function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic (.+)$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function registerPinterestOAuthRoutes(app: FastifyInstance, state: PinterestSimulatorState, ctx: PinSimContext): void {
  app.get('/web/oauth/', async (request, reply) => {
    ctx.ledger.record('authorize', request.method, request.url);
    const q = request.query as Fields;
    const missing = ['client_id', 'redirect_uri', 'response_type', 'scope'].find((k) => !q[k]);
    if (missing) return reply.code(400).type('text/plain').send(`Invalid request: missing ${missing}`);
    if (q.response_type !== 'code') return reply.code(400).type('text/plain').send('Invalid request: response_type must be code');
    if (state.client && q.client_id !== state.client.id) return reply.code(400).type('text/plain').send('Invalid client_id');
    const code = state.newCode();
    state.codes.set(code, {
      clientId: q.client_id ?? '',
      redirectUri: q.redirect_uri ?? '',
      scopes: (q.scope ?? '').split(',').filter(Boolean),
      userId: state.defaultUser.id,
      used: false,
    });
    const target = new URL(q.redirect_uri ?? '');
    target.searchParams.set('code', code);
    if (q.state !== undefined) target.searchParams.set('state', q.state);
    return reply.redirect(target.toString(), 302);
  });

  app.post('/v5/oauth/token', async (request, reply) => {
    const begun = await beginOperation(ctx, 'token', request, reply);
    if (begun === 'answered') return reply;
    const client = basicCredentials(request.headers.authorization);
    if (!client || (state.client && (client.id !== state.client.id || client.secret !== state.client.secret))) {
      return sendPinError(reply, 401, PIN_ERRORS.authenticationFailed, 'Authentication failed.');
    }
    const f = (request.body ?? {}) as Fields;
    let answer: Record<string, unknown>;
    if (f.grant_type === 'authorization_code') {
      const grant = f.code ? state.codes.get(f.code) : undefined;
      if (!grant || grant.used || grant.clientId !== client.id) {
        return sendPinError(reply, 400, PIN_ERRORS.invalidParameters, 'Invalid authorization code.');
      }
      if (grant.redirectUri !== f.redirect_uri) {
        return sendPinError(reply, 400, PIN_ERRORS.invalidParameters, 'redirect_uri does not match the authorization request.');
      }
      grant.used = true;
      const issued = state.issueTokens(grant.userId, grant.scopes, client.id);
      answer = {
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        response_type: 'authorization_code',
        token_type: 'bearer',
        expires_in: state.accessTokenLifetimeSeconds,
        refresh_token_expires_in: state.refreshTokenLifetimeSeconds,
        scope: grant.scopes.join(','),
      };
    } else if (f.grant_type === 'refresh_token') {
      const grant = f.refresh_token ? state.refreshTokens.get(f.refresh_token) : undefined;
      if (!grant || grant.revoked || grant.clientId !== client.id) {
        return sendPinError(reply, 400, PIN_ERRORS.invalidParameters, 'Invalid refresh token.');
      }
      answer = {
        access_token: state.refreshAccess(f.refresh_token ?? ''),
        response_type: 'refresh_token',
        token_type: 'bearer',
        expires_in: state.accessTokenLifetimeSeconds,
        scope: grant.scopes.join(','),
      };
    } else {
      return sendPinError(reply, 400, PIN_ERRORS.invalidParameters, `Unsupported grant_type: ${f.grant_type ?? ''}`);
    }
    if (begun.loseAnswer) return dropConnection(request, reply);
    return reply.send(answer);
  });
}
