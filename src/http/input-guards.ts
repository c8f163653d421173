/**
 * Input rules every route shares, applied once here instead of per route so a new route cannot miss
 * them:
 * - text PostgreSQL cannot store (U+0000, unpaired UTF-16 surrogates) is refused in params, query and
 *   body before validation, with the route's own validation code;
 * - date-time values are bounded to the years 1900-2999 (the ajv format itself, so every schema using
 *   format date-time gets it);
 * - path parameters named like ids (`fooId`) without a format get the id format `<prefix>_<ULID>`;
 * - every documented route gets a closed querystring (unknown query parameters are refused), unless
 *   its querystring schema says otherwise (e.g. OAuth callbacks, where the platform adds parameters);
 * - request log lines carry the URL with secret query parameters redacted.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import { AppError, type FieldIssue } from '../platform/errors.js';
import { redactUrl } from '../platform/logging/redact.js';
import { endHookWith } from './callback-hooks.js';
import { checkJsonShape, jsonShapeError } from './json-body.js';

/** `<prefix>_<ULID>`: lower-case prefix, Crockford base-32 ULID. */
const GENERIC_ID_PATTERN = '^[a-z][a-z0-9]{0,15}_[0-9A-HJKMNP-TV-Z]{26}$';
const MIN_YEAR = 1900;
const MAX_YEAR = 2999;

// ---------------------------------------------------------------- text PostgreSQL cannot store

/** True when PostgreSQL can store the string in text and jsonb columns. */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !UNPAIRED_SURROGATE.test(s);
}
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The path of the first string (value or key) PostgreSQL cannot store, or null. The path is built on the
 * way back from a hit only: every request walks its params and query, and most find nothing.
 */
function findUnstorableText(value: unknown, depth = 0): string[] | null {
  if (typeof value === 'string') return isStorableText(value) ? null : [];
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Buffer.isBuffer(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], depth + 1);
      if (found) {
        found.unshift(String(i));
        return found;
      }
    }
    return null;
  }
  for (const k of Object.keys(value)) {
    if (!isStorableText(k)) return [k.replaceAll('\u0000', '\\u0000')];
    const found = findUnstorableText((value as Record<string, unknown>)[k], depth + 1);
    if (found) {
      found.unshift(k);
      return found;
    }
  }
  return null;
}

export function unstorableTextError(request: FastifyRequest, source: FieldIssue['source'], path: string[]): AppError {
  const code = request.routeOptions?.config?.validationCode ?? 'invalid_request';
  const where = path.length > 0 ? `${source} ${path.join('.')}` : source;
  return new AppError(code, {
    message: `Invalid ${where}: text must not contain U+0000 or unpaired surrogates.`,
    fields: [{ path, source, message: 'must not contain U+0000 or unpaired surrogates' }],
  });
}

/**
 * In JSON text, U+0000 and lone surrogates can only arrive as `\u` escapes (a raw control character is
 * invalid JSON, and invalid UTF-8 decodes to U+FFFD), so a body whose text holds no `\u0000` and no
 * `\uD800`-`\uDFFF` escape cannot hold them once parsed. A match (even a harmless one, such as an escaped
 * backslash before `u0000`, or a valid escaped surrogate pair) only means the parsed body is walked.
 */
const MAY_HOLD_UNSTORABLE = /\\u(?:0000|[dD][89abcdefABCDEF])/;
const BODY_TEXT_STORABLE = Symbol('bodyTextStorable');

/**
 * Called by JSON body parsers with the body's text before parsing: when the text cannot hold unstorable
 * text, the guard below skips the walk over the parsed body (one scan of the text instead of a walk that
 * allocates a path per value).
 */
export function noteJsonBodyText(request: FastifyRequest, text: string): void {
  // most bodies hold no escape at all: a plain substring search, then the pattern only where one is
  (request as unknown as Record<symbol, boolean>)[BODY_TEXT_STORABLE] = !text.includes('\\u') || !MAY_HOLD_UNSTORABLE.test(text);
}

function unstorableTextIssue(request: FastifyRequest): AppError | null {
  let path = findUnstorableText(request.params);
  if (path) return unstorableTextError(request, 'params', path);
  path = findUnstorableText(request.query);
  if (path) return unstorableTextError(request, 'query', path);
  if ((request as unknown as Record<symbol, boolean>)[BODY_TEXT_STORABLE] === true) return null;
  path = findUnstorableText(request.body);
  return path ? unstorableTextError(request, 'body', path) : null;
}

// The hooks below and the other hooks many requests run (app.ts, the checks of public-auth.ts and
// dashboard-auth.ts, the metrics hook) take Fastify's `done` callback rather than being async: an async hook
// costs a promise and a microtask turn per request even where it has nothing to do.
function refuseUnstorableText(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  endHookWith(done, () => unstorableTextIssue(request));
}

/** The path of the first number that is not finite (query coercion turns "1e309" into Infinity), or null. */
function findNonFiniteNumber(value: unknown, depth = 0): string[] | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : [];
  if (value === null || typeof value !== 'object' || depth > 64 || Buffer.isBuffer(value)) return null;
  for (const k of Object.keys(value)) {
    const found = findNonFiniteNumber((value as Record<string, unknown>)[k], depth + 1);
    if (found) {
      found.unshift(k);
      return found;
    }
  }
  return null;
}

/** After validation: ajv's coercion accepts numbers too large to be finite; refuse them here. */
function nonFiniteNumberIssue(request: FastifyRequest, source: FieldIssue['source'], value: unknown): AppError | null {
  const path = findNonFiniteNumber(value);
  if (!path) return null;
  const code = request.routeOptions?.config?.validationCode ?? 'invalid_request';
  return new AppError(code, {
    message: `Invalid ${source} ${path.join('.')}: must be a finite number.`,
    fields: [{ path, source, message: 'must be a finite number' }],
  });
}

function refuseNonFiniteNumbers(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  endHookWith(done, () => nonFiniteNumberIssue(request, 'params', request.params) ?? nonFiniteNumberIssue(request, 'query', request.query));
}

// ---------------------------------------------------------------- date-time bounds

/** ajv plugin: the compiler's own formats, with date-time bounded to MIN_YEAR..MAX_YEAR. */
export function formatsPlugin<A extends { addFormat(name: string, format: any): unknown }>(ajv: A): A {
  // ajv-formats is the Fastify validator compiler's own dependency; resolve it from there
  const compilerRequire = createRequire(createRequire(import.meta.url).resolve('@fastify/ajv-compiler'));
  const addFormats = compilerRequire('ajv-formats') as (a: unknown) => unknown;
  const { fullFormats } = compilerRequire('ajv-formats/dist/formats') as {
    fullFormats: Record<string, { validate: (s: string) => boolean; compare: unknown }>;
  };
  addFormats(ajv);
  const base = fullFormats['date-time']!;
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => base.validate(s) && isDateTimeInRange(s),
    compare: base.compare,
  });
  return ajv;
}

/** RFC 3339 date-time whose year (before and after the offset) lies in MIN_YEAR..MAX_YEAR. */
function isDateTimeInRange(s: string): boolean {
  const year = Number(s.slice(0, 4));
  if (!(year >= MIN_YEAR && year <= MAX_YEAR)) return false;
  const t = Date.parse(s);
  if (Number.isNaN(t)) return false;
  const utcYear = new Date(t).getUTCFullYear();
  return utcYear >= MIN_YEAR && utcYear <= MAX_YEAR;
}

// ---------------------------------------------------------------- route schemas

type JsonSchema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

function isDocumented(route: RouteOptions): boolean {
  const schema = route.schema as { hide?: boolean } | undefined;
  return Boolean(schema) && !schema?.hide && !route.url.startsWith('/v1/docs');
}

/**
 * A documented route that takes input (body, query or path parameters) answers its own validation code
 * (`config.validationCode`, an `invalid_*` code of the catalog), never the generic invalid_request; the
 * code is added to the route's documented 400 answer.
 */
function requireValidationCode(route: RouteOptions, schema: Record<string, unknown>): void {
  // the publishing API only: the tool API (/api/v1/tools) and the sandbox simulators keep their own codes
  if (!route.url.startsWith('/v1/')) return;
  if (!['body', 'querystring', 'params'].some((part) => schema[part] !== undefined)) return;
  const code = (route.config as { validationCode?: string } | undefined)?.validationCode;
  if (!code || code === 'invalid_request')
    throw new Error(`${String(route.method)} ${route.url} takes input: give it config.validationCode, its own invalid_* code`);
  const response = schema.response as Record<string, Record<string, unknown>> | undefined;
  if (!response) return;
  const documented = response['400'] ?? response[400 as unknown as string];
  const description = typeof documented?.description === 'string' ? documented.description : '';
  if (documented && new RegExp(`\\b${code}\\b`).test(description)) return;
  const described = description.startsWith('Error codes: ')
    ? `${description.replace(/\.$/, '')}, ${code}.`
    : `Error codes: ${code}.${description ? ` ${description}` : ''}`;
  schema.response = { ...response, 400: { ...(documented ?? { $ref: 'ErrorResponse' }), description: described } };
}

/** Path ids get the id format; querystrings get closed. Schemas are copied, never mutated in place. */
function tightenRouteSchema(route: RouteOptions): void {
  if (!isDocumented(route)) return;
  const schema = { ...(route.schema as Record<string, unknown>) };
  requireValidationCode(route, schema);
  const params = schema.params as JsonSchema | undefined;
  if (params?.properties) {
    let changed = false;
    const properties: Record<string, Record<string, unknown>> = {};
    for (const [name, prop] of Object.entries(params.properties)) {
      const untyped = prop.type === 'string' && prop.pattern === undefined && prop.enum === undefined && prop.const === undefined;
      if (/Id$/.test(name) && untyped) {
        const { minLength: _min, maxLength: _max, ...rest } = prop;
        properties[name] = { ...rest, pattern: GENERIC_ID_PATTERN, description: (prop.description as string) ?? '<prefix>_<ULID>' };
        changed = true;
      } else properties[name] = prop;
    }
    if (changed) schema.params = { ...params, properties };
  }
  const query = schema.querystring as JsonSchema | undefined;
  if (!query) schema.querystring = { type: 'object', properties: {}, additionalProperties: false };
  else if (query.type === 'object' && query.additionalProperties === undefined)
    schema.querystring = { ...query, additionalProperties: false };
  route.schema = schema;
}

// ---------------------------------------------------------------- logs

// the URL redaction is the platform's (every logger of the service uses it): re-exported for the request log
export { redactUrl };

/** pino serializer of the request: what Fastify logs by default, with the URL redacted. */
export function requestLogSerializer(req: FastifyRequest | { method?: string; url?: string }) {
  const r = req as FastifyRequest;
  return {
    method: r.method,
    url: redactUrl(r.url ?? ''),
    host: r.host,
    remoteAddress: r.ip,
    remotePort: r.socket?.remotePort,
  };
}

export function installInputGuards(app: FastifyInstance): void {
  // Fastify's own JSON parser (same limits, errors and prototype-poisoning checks), noting the text first
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    // duplicate keys, nesting and size are refused before parsing (json-body.ts)
    const issue = checkJsonShape(text as string);
    if (issue) return done(jsonShapeError(request.routeOptions?.config?.validationCode ?? 'invalid_request', issue), undefined);
    noteJsonBodyText(request, text as string);
    parseJson(request, text as string, done);
  });
  app.addHook('onRoute', tightenRouteSchema);
  app.addHook('preValidation', refuseUnstorableText);
  app.addHook('preHandler', refuseNonFiniteNumbers);
}
