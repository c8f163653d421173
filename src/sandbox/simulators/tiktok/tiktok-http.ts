/**
 * Request plumbing of the TikTok simulator: TikTok's response envelope and error bodies, the failure
 * switches of the FailureQueue, body parsers, and bearer-token checks.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type FailureRule, runWithFailures, SimAnswer, type SimResult, type SimulatorPluginOptions } from '../../simulator-kit.js';
import { randomId, type TiktokSimToken, type TiktokSimulatorState } from './tiktok-state.js';

export { SimAnswer, type SimResult };

const logId = () => `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomId(9).toUpperCase()}`;

export function ok(data: unknown, status = 200): SimResult {
  return {
    status,
    body: { data, error: { code: 'ok', message: '', log_id: logId() } },
  };
}

export function apiError(status: number, code: string, message: string, headers?: Record<string, string>): SimAnswer {
  return new SimAnswer({
    status,
    headers,
    body: { data: {}, error: { code, message, log_id: logId() } },
  });
}

/** The OAuth endpoints answer RFC 6749 style errors. */
export function oauthError(status: number, error: string, description: string): SimAnswer {
  return new SimAnswer({
    status,
    body: { error, error_description: description, log_id: logId() },
  });
}

export type SimContext = SimulatorPluginOptions<TiktokSimulatorState>;

/**
 * Wraps a handler with the failure switches. expired_token / rate_limit / server_error answer instead of the
 * handler; timeout holds the request first; lost_response runs the handler (the effect happens) and then
 * destroys the socket without answering.
 */
export function simulate(
  ctx: SimContext,
  operation: string,
  style: 'api' | 'oauth',
  handler: (req: FastifyRequest) => Promise<SimResult> | SimResult,
) {
  const answerFor = (failure: FailureRule): SimAnswer => {
    if (failure.kind === 'expired_token') {
      return style === 'oauth'
        ? oauthError(400, 'invalid_grant', 'Authorization code or refresh token is expired or invalid.')
        : apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    }
    if (failure.kind === 'rate_limit') {
      const headers = failure.retryAfterSeconds !== undefined ? { 'retry-after': String(failure.retryAfterSeconds) } : undefined;
      return apiError(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.', headers);
    }
    return apiError(500, 'internal_error', 'Something went wrong. Please try again later.');
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    ctx.ledger.record(operation, req.method, req.url);
    const result = await runWithFailures(req, reply, ctx.failures, operation, answerFor, handler);
    if (!result) return;
    if (result.headers) reply.headers(result.headers);
    return reply.code(result.status).send(result.body ?? '');
  };
}

/** Validates the bearer token and, when given, that it carries the scope. */
export function authorize(ctx: SimContext, req: FastifyRequest, scope?: string): TiktokSimToken & { accessToken: string } {
  const header = req.headers.authorization ?? '';
  const accessToken = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  const token = ctx.state.tokens.get(accessToken);
  if (!token || token.revoked || token.expiresAt <= Date.now()) {
    throw apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
  }
  if (scope && !token.scopes.includes(scope)) {
    throw apiError(401, 'scope_not_authorized', `The user did not authorize the scope required for completing this request: ${scope}.`);
  }
  return { ...token, accessToken };
}

/** Form and raw video parsers, replacing the host app's own inside this encapsulated plugin (sandbox mounting). */
export function addBodyParsers(app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) {
    app.removeContentTypeParser('application/x-www-form-urlencoded');
  }
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  for (const type of ['video/mp4', 'video/quicktime', 'video/webm', 'application/octet-stream']) {
    if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type);
    app.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: 200 * 1024 * 1024 }, (_req, body, done) => done(null, body));
  }
}

export function formBody(req: FastifyRequest): Record<string, string> {
  const body = req.body;
  return body && typeof body === 'object' ? (body as Record<string, string>) : {};
}

export function jsonBody(req: FastifyRequest): Record<string, unknown> {
  const body = req.body;
  return body && typeof body === 'object' && !Buffer.isBuffer(body) ? (body as Record<string, unknown>) : {};
}

/** External origin of the simulator as the caller sees it, for absolute URLs such as upload_url. */
export function originOf(ctx: SimContext, req: FastifyRequest): string {
  return ctx.state.publicOrigin ?? `${req.protocol}://${req.host}`;
}
