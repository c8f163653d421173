/**
 * The one place errors become HTTP answers. Handlers and services throw AppError(code); Fastify's own
 * failures (validation, malformed JSON, oversized bodies, unknown routes) are mapped to catalog codes
 * here. Publishing API routes answer ErrorResponse; tool API routes answer the tool envelope
 * {object: "tool_api.error", error: {code, message}}. Unexpected errors answer 500 without internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError, ERROR_CATALOG, type ErrorCode, type FieldIssue } from '../platform/errors.js';

export const TOOL_API_PREFIX = '/api/v1/tools';

export interface RegisteredRoute {
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
    /** the operation's own validation code (e.g. invalid_public_brand_query); default invalid_request */
    validationCode?: ErrorCode;
  }
}

type Source = FieldIssue['source'];
const SOURCES: Record<string, Source> = { body: 'body', querystring: 'query', params: 'params' };

function validationFields(err: FastifyError): FieldIssue[] {
  const source = SOURCES[err.validationContext ?? 'body'] ?? 'body';
  return (err.validation ?? []).map((v) => {
    const path = v.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const params = v.params as Record<string, unknown>;
    if (typeof params.missingProperty === 'string') path.push(params.missingProperty);
    if (typeof params.additionalProperty === 'string') path.push(params.additionalProperty);
    return { path, source, message: v.message ?? 'invalid' };
  });
}

function describe(fields: FieldIssue[]): string {
  const first = fields[0];
  if (!first) return 'The request is not valid.';
  const where = first.path.length > 0 ? `${first.source} ${first.path.join('.')}` : first.source;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more)` : '';
  return `Invalid ${where}: ${first.message}${more}.`;
}

/** Maps any thrown value to an AppError (never leaking internals). */
export function toAppError(err: unknown, request: FastifyRequest): { error: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { error: err, unexpected: false };
  const fe = err as FastifyError;
  const routeCode = request.routeOptions?.config?.validationCode ?? 'invalid_request';
  if (fe.validation) {
    const fields = validationFields(fe);
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
      return { error: new AppError('invalid_request', { message: 'Content-Length does not match the body.' }), unexpected: false };
  }
  if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return {
      error: new AppError(routeCode, { message: 'The body is not valid JSON.', fields: [{ path: [], source: 'body' }] }),
      unexpected: false,
    };
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return { error: new AppError('invalid_request', { message: 'The request is not valid.' }), unexpected: false };
  }
  return { error: new AppError('internal_server_error'), unexpected: true };
}

export function renderError(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.headers) for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  reply.code(error.status).header('content-type', 'application/json; charset=utf-8');
  if (request.url.startsWith(TOOL_API_PREFIX)) {
    return reply.send({ object: 'tool_api.error', error: { code: error.code, message: error.message, ...(error.details ?? {}) } });
  }
  const body: Record<string, unknown> = { error: error.code, message: error.message, requestId: request.id };
  if (error.fields && error.fields.length > 0) body.fields = error.fields;
  if (error.details) Object.assign(body, error.details, { error: error.code, message: error.message, requestId: request.id });
  return reply.send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  // remembers every route so an unknown method on a known path answers 405 with Allow
  const known = FindMyWay({ ignoreTrailingSlash: true });
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
    return renderError(request, reply, error);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => known.find(m as 'GET', path));
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return renderError(
        request,
        reply,
        new AppError('method_not_allowed', { message: `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.` }),
      );
    }
    return renderError(request, reply, new AppError('not_found', { message: `No route ${request.method} ${path}.` }));
  });
}

export function catalogEntry(code: ErrorCode) {
  return ERROR_CATALOG[code];
}
