/**
 * The one place errors become HTTP answers. Handlers and services throw AppError(code); Fastify's own
 * failures (validation, malformed JSON, oversized bodies, unknown routes) are mapped to catalog codes
 * here. Routes answer ErrorResponse, unless an area registered an envelope of its own for its path
 * prefix (`ErrorEnvelope`, from the area's module: the tool API's {object: "tool_api.error", error}).
 * Unexpected errors answer 500 without internals.
 */

import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError, ERROR_CATALOG, type ErrorCode, type FieldIssue } from '../platform/errors.js';
import { installInputGuards } from './input-guards.js';
import { validationFields } from './validation-errors.js';

/**
 * An area whose routes answer errors in a shape of their own (the tool API's specification): every
 * error under `prefix`, including those raised before routing and by Node's HTTP parser, is rendered by
 * `render` (the status, `x-request-id` and headers stay the same as for ErrorResponse).
 */
export interface ErrorEnvelope {
  prefix: string;
  render(error: { code: ErrorCode; message: string; details?: Record<string, unknown> }, requestId: string): Record<string, unknown>;
}

interface RegisteredRoute {
  method: string;
  url: string;
  hidden: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** every route registered, for the OpenAPI completeness test and 405 answers */
    registeredRoutes: RegisteredRoute[];
  }
  interface FastifyContextConfig {
    /** the operation's own validation code (e.g. invalid_public_brand_query); required on documented routes with inputs */
    validationCode?: ErrorCode;
  }
}

function describe(fields: FieldIssue[]): string {
  const first = fields[0];
  if (!first) return 'The request is not valid.';
  const where = first.path.length > 0 ? `${first.source} ${first.path.join('.')}` : first.source;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more)` : '';
  return `Invalid ${where}: ${first.message}${more}.`;
}

/**
 * PostgreSQL errors caused by what a client sent (text the database cannot encode, dates and numbers
 * out of range, values too long for a column or an index): the last line of defence behind the
 * schemas, answered as the route's 400 instead of a 500.
 */
const INPUT_SQLSTATES: Record<string, string> = {
  '22021': 'The request contains text the database cannot store (e.g. U+0000).',
  '22P05': 'The request contains text the database cannot store (e.g. \\u0000 or an unpaired surrogate).',
  '22008': 'A date in the request is out of range.',
  '22007': 'A date in the request is not valid.',
  '22003': 'A number in the request is out of range.',
  '22P02': 'A value in the request does not have the expected type.',
  '22001': 'A value in the request is too long.',
  '54000': 'A value in the request is too long.',
};

function inputSqlState(err: unknown): string | null {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && e.code in INPUT_SQLSTATES) return e.code;
  }
  return null;
}

/** Maps any thrown value to an AppError (never leaking internals, never throwing). */
export function toAppError(err: unknown, request: FastifyRequest): { error: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { error: err, unexpected: false };
  try {
    return mapError(err, request);
  } catch {
    // the mapping itself failed (it reads the request and the error): a 500 without internals
    return { error: new AppError('internal_server_error'), unexpected: true };
  }
}

function mapError(err: unknown, request: FastifyRequest): { error: AppError; unexpected: boolean } {
  const fe = err as FastifyError;
  const routeCode = request.routeOptions?.config?.validationCode ?? 'invalid_request';
  const sqlState = inputSqlState(err);
  if (sqlState) return { error: new AppError(routeCode, { message: INPUT_SQLSTATES[sqlState] }), unexpected: false };
  if (fe.validation) {
    const fields = validationFields(request.server, request, fe);
    return { error: new AppError(routeCode, { message: describe(fields), fields }), unexpected: false };
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { error: new AppError('payload_too_large'), unexpected: false };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        error: new AppError('unsupported_media_type', {
          message: `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported here; send application/json.`,
        }),
        unexpected: false,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        error: new AppError(routeCode, { message: 'The body is empty; send a JSON object.', fields: [{ path: [], source: 'body' }] }),
        unexpected: false,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { error: new AppError(routeCode, { message: 'Content-Length does not match the body.' }), unexpected: false };
    case 'FST_ERR_BAD_URL':
      return { error: new AppError(routeCode, { message: 'The request path is not valid percent-encoding.' }), unexpected: false };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { error: new AppError('request_uri_too_long', { message: 'A path segment of the request is too long.' }), unexpected: false };
  }
  if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return {
      error: new AppError(routeCode, { message: 'The body is not valid JSON.', fields: [{ path: [], source: 'body' }] }),
      unexpected: false,
    };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { error: new AppError(routeCode, { message: 'The request is not valid.' }), unexpected: false };
  }
  return { error: new AppError('internal_server_error'), unexpected: true };
}

function errorBody(envelopes: readonly ErrorEnvelope[], url: string, error: AppError, requestId: string): Record<string, unknown> {
  const envelope = envelopes.find((e) => url.startsWith(e.prefix));
  if (envelope)
    return envelope.render({ code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }, requestId);
  const body: Record<string, unknown> = { error: error.code, message: error.message, requestId };
  if (error.fields && error.fields.length > 0) body.fields = error.fields;
  if (error.details) Object.assign(body, error.details, { error: error.code, message: error.message, requestId });
  return body;
}

function renderError(envelopes: readonly ErrorEnvelope[], request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  reply.code(error.status).header('content-type', 'application/json; charset=utf-8').header('x-request-id', request.id);
  return reply.send(errorBody(envelopes, request.url, error, request.id));
}

const CLIENT_ERRORS: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'request_header_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  ERR_HTTP_REQUEST_ENTITY_TOO_LARGE: 'payload_too_large',
};

/**
 * Errors Node's HTTP parser raises before any request exists (malformed request line or headers,
 * headers too large, request timeout): answered with the same envelopes, a request id and x-request-id.
 * An area's own envelope applies when the raw request line names its prefix.
 */
function clientErrorHandler(envelopes: readonly ErrorEnvelope[], err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const code = CLIENT_ERRORS[err.code ?? ''] ?? 'invalid_request';
    const { status, message } = ERROR_CATALOG[code];
    const requestId = `req_${randomBytes(10).toString('hex')}`;
    const raw = (err as { rawPacket?: unknown }).rawPacket;
    const firstLine = (Buffer.isBuffer(raw) ? raw.subarray(0, 512).toString('latin1') : '').split('\r\n')[0];
    const target = firstLine?.split(' ')[1] ?? '';
    const body = JSON.stringify(errorBody(envelopes, target, new AppError(code, { message }), requestId));
    socket.write(
      `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : status === 408 ? 'Request Timeout' : status === 413 ? 'Payload Too Large' : 'Request Header Fields Too Large'}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

function installErrorHandling(envelopes: readonly ErrorEnvelope[], app: FastifyInstance): void {
  installInputGuards(app);
  // remembers every route so an unknown method on a known path answers 405 with Allow
  const known = FindMyWay();
  const list: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', list);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      list.push({ method: m, url: route.url, hidden: Boolean((route.schema as { hide?: boolean } | undefined)?.hide) });
      try {
        known.on(m as 'GET', route.url, () => undefined);
      } catch {
        /* duplicates (HEAD for GET) */
      }
    }
  });

  app.setErrorHandler((err, request, reply) => {
    const { error, unexpected } = toAppError(err, request);
    if (unexpected) request.log.error({ err }, 'unexpected error');
    else if (error.status >= 500) request.log.error({ code: error.code }, error.message);
    return renderError(envelopes, request, reply, error);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowedOn = (p: string) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => known.find(m as 'GET', p));
    const allowed = allowedOn(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return renderError(
        envelopes,
        request,
        reply,
        new AppError('method_not_allowed', { message: `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.` }),
      );
    }
    // a trailing slash (or a missing one) is a different path: say which one exists
    const other = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
    const hint = other !== path && allowedOn(other).length > 0 ? ` Did you mean ${other}?` : '';
    return renderError(envelopes, request, reply, new AppError('not_found', { message: `No route ${request.method} ${path}.${hint}` }));
  });
}

/**
 * The error machinery for one app: `frameworkErrors` and `clientErrorHandler` go to Fastify's options
 * (errors before routing, errors of Node's HTTP parser), `install` sets the error and not-found handlers.
 * `envelopes`: the areas' own error shapes by path prefix (none: ErrorResponse everywhere).
 */
export function errorHandling(envelopes: readonly ErrorEnvelope[] = []) {
  return {
    /** Fastify errors raised before routing (bad percent-encoding, over-long path segment): same envelopes. */
    frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
      const { error } = toAppError(err, request);
      void renderError(envelopes, request, reply, error);
    },
    clientErrorHandler: (err: Error & { code?: string }, socket: Socket) => clientErrorHandler(envelopes, err, socket),
    install: (app: FastifyInstance) => installErrorHandling(envelopes, app),
  };
}
