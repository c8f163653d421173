/**
 * Request plumbing of the X simulator: problem-details error bodies, x-rate-limit-* headers, the failure
 * switches of the FailureQueue, bearer-token and scope checks, and form / multipart body parsing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type FailureRule, runWithFailures, SimAnswer, type SimResult, type SimulatorPluginOptions } from '../../simulator-kit.js';
import type { XSimulatorState } from './x-state.js';

export { SimAnswer, type SimResult };

export type XSimContext = SimulatorPluginOptions<XSimulatorState>;

const TITLES: Record<number, string> = {
  400: 'Invalid Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found Error',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

/** X problem details: {title, detail, type, status}. */
export function problem(
  status: number,
  detail: string,
  type = 'about:blank',
  headers?: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  return new SimAnswer({
    status,
    headers,
    body: { title: TITLES[status] ?? 'Error', detail, type, status, ...extra },
  });
}

/** 400 with the per-parameter errors array X sends for invalid requests. */
export function invalidRequest(message: string, parameter?: string) {
  return problem(400, 'One or more parameters to your request was invalid.', 'https://api.x.com/2/problems/invalid-request', undefined, {
    errors: [{ parameters: parameter ? { [parameter]: [] } : {}, message }],
  });
}

export function oauthError(status: number, error: string, description: string) {
  return new SimAnswer({
    status,
    body: { error, error_description: description },
  });
}

/** Rate headers computed for this request by authorize(); added to whatever the request answers. */
const rateHeaders = new WeakMap<FastifyRequest, Record<string, string>>();

/**
 * Wraps a handler with the failure switches: expired_token / rate_limit / server_error answer instead of
 * the handler; timeout holds the request first; lost_response runs the handler (the post is created) and
 * then destroys the socket without answering.
 */
export function simulate(ctx: XSimContext, operation: string, handler: (req: FastifyRequest) => Promise<SimResult> | SimResult) {
  const answerFor = (failure: FailureRule): SimAnswer => {
    if (failure.kind === 'expired_token') {
      return operation === 'token'
        ? oauthError(400, 'invalid_request', 'Value passed for the token was invalid.')
        : problem(401, 'Unauthorized');
    }
    if (failure.kind === 'rate_limit') {
      const wait = failure.retryAfterSeconds ?? 60;
      return problem(429, 'Too Many Requests', 'about:blank', {
        'x-rate-limit-limit': '1',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(Math.ceil(Date.now() / 1000) + wait),
      });
    }
    return problem(503, 'Service Unavailable');
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    ctx.ledger.record(operation, req.method, req.url);
    const result = await runWithFailures(req, reply, ctx.failures, operation, answerFor, handler);
    if (!result) return;
    reply.headers({
      ...(rateHeaders.get(req) ?? {}),
      ...(result.headers ?? {}),
    });
    if (result.body === undefined) return reply.code(result.status).send();
    return reply.code(result.status).send(result.body);
  };
}

/**
 * Validates the bearer token and scopes, and counts the call in the user's 15-minute window for
 * `endpoint` (429 with x-rate-limit-* headers once exhausted).
 */
export function authorize(ctx: XSimContext, req: FastifyRequest, scopes: string[], endpoint: string, limit: number) {
  const header = req.headers.authorization ?? '';
  const accessToken = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
  const token = ctx.state.tokens.get(accessToken);
  if (!token || token.revoked || token.expiresAt <= Date.now()) throw problem(401, 'Unauthorized');
  const missing = scopes.filter((s) => !token.scopes.includes(s));
  if (missing.length > 0) {
    throw problem(403, `Missing scopes: ${missing.join(' ')}`, 'https://api.x.com/2/problems/oauth2-permissions');
  }
  const window = ctx.state.consume(endpoint, token.userId, limit);
  if (!window) {
    throw problem(429, 'Too Many Requests', 'about:blank', {
      'x-rate-limit-limit': String(limit),
      'x-rate-limit-remaining': '0',
      'x-rate-limit-reset': String(ctx.state.windowReset(endpoint, token.userId)),
    });
  }
  rateHeaders.set(req, {
    'x-rate-limit-limit': String(window.limit),
    'x-rate-limit-remaining': String(window.remaining),
    'x-rate-limit-reset': String(window.reset),
  });
  return { ...token, accessToken };
}

export interface MultipartFields {
  fields: Record<string, string>;
  files: Record<string, Buffer>;
}

/** Minimal multipart/form-data parser: enough for the media upload commands. */
export function parseMultipart(body: Buffer, contentType: string): MultipartFields {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const out: MultipartFields = { fields: {}, files: {} };
  if (!boundary) return out;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let pos = body.indexOf(delimiter);
  while (pos >= 0) {
    const start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const content = part.subarray(headerEnd + 4);
      const name = /name="([^"]+)"/i.exec(headers)?.[1];
      if (name && /filename="/i.test(headers)) out.files[name] = Buffer.from(content);
      else if (name) out.fields[name] = content.toString('utf8');
    }
    pos = next;
  }
  return out;
}

/** Form and multipart parsers, replacing the host app's own inside this encapsulated plugin (sandbox mounting). */
export function addBodyParsers(app: FastifyInstance): void {
  if (app.hasContentTypeParser('application/x-www-form-urlencoded')) app.removeContentTypeParser('application/x-www-form-urlencoded');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  if (app.hasContentTypeParser('multipart/form-data')) app.removeContentTypeParser('multipart/form-data');
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: 8 * 1024 * 1024 }, (req, body, done) => {
    done(null, parseMultipart(body as Buffer, String(req.headers['content-type'] ?? '')));
  });
}

export function formBody(req: FastifyRequest): Record<string, string> {
  return req.body && typeof req.body === 'object' ? (req.body as Record<string, string>) : {};
}
