/**
 * The tool API under /api/v1/tools in its own encapsulated plugin: its own JSON parser (byte limit per
 * tier, 413 payload_too_large) and its own error handler (the tool envelope with quota and rateLimit on limit
 * errors, and 400 invalid_request for anything that is not a JSON body). Authentication is the tool scheme
 * (tool-auth.ts) run by the service's one auth hook: each route names its tool in `config.authBy`.
 */

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthScheme } from '../../http/auth-scheme.js';
import { toAppError } from '../../http/error-handler.js';
import { noteJsonBodyText } from '../../http/input-guards.js';
import { checkJsonShape, jsonShapeError } from '../../http/json-body.js';
import { IDEMPOTENT_REPLAY } from '../../http/openapi-headers.js';
import { epochMs } from '../../platform/clock.js';
import { ChannelListener } from '../../platform/db/channel-listener.js';
import { AppError } from '../../platform/errors.js';
import type { AppDeps } from '../app-deps.js';
import type { UsersAdminPort, UsersReadPort } from '../identity/identity.module.js';
import { generateQrFromRequest } from './qrcode/qr-generator.js';
import { parseQrRequest, type QrRequest } from './qrcode/qr-options.js';
import { QrWorkerPool } from './qrcode/qr-worker-pool.js';
import { LastUsedWriter, TOOL_AUTH_SCHEME, type ToolPrincipal, toolAuthScheme } from './tool-auth.js';
import { storeAuthVersion, TOOL_AUTH_CHANNEL, ToolAuthCache } from './tool-auth-cache.js';
import { TOOL_API_PREFIX, toolErrorEnvelope } from './tool-envelope.js';
import { ToolLimiter } from './tool-limiter.service.js';
import { TOOL_MAX_BODY_BYTES, type ToolName } from './tool-limits.js';
import { type ToolPlan, ToolRequestRunner } from './tool-request.service.js';
import {
  QrGenerateRequest,
  QrGenerateResponse,
  TOOL_SHARED_SCHEMAS,
  ToolHeaders,
  toolResponses,
  UtmBuildRequest,
  UtmBuildResponse,
} from './tools.schemas.js';
import { buildUtmLinks, parseUtmRequest } from './utm/utm-builder.js';

export interface ToolRoutesOptions {
  /** QR worker threads; default from the number of cores */
  qrWorkers?: number;
}

function principalOf(request: FastifyRequest): ToolPrincipal {
  if (!request.toolPrincipal) throw new AppError('authentication_required');
  return request.toolPrincipal;
}

function renderToolError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  let error: AppError;
  if (err instanceof AppError) error = err;
  else {
    const mapped = toAppError(err, request);
    if (mapped.unexpected) request.log.error({ err }, 'unexpected tool API error');
    error = mapped.error;
    if ((err as FastifyError).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      error = new AppError('invalid_request', { message: 'The body must be a JSON object sent as Content-Type: application/json.' });
    }
  }
  if (error.headers) reply.headers(error.headers);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(toolErrorEnvelope({ code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) }));
}

// The work of a plan is a closure made per request. These factories return it unnamed: the TypeScript
// loader keeps function names by redefining `name` on every named closure it creates (~1 µs each).
type ToolWork = Extract<ToolPlan, { kind: 'run' }>['run'];

function resolved(body: Record<string, unknown>): ToolWork {
  return () => ({ ok: true, body });
}

function qrWork(qr: QrRequest, pool: () => QrWorkerPool): ToolWork {
  return async () => {
    const generated = await generateQrFromRequest(qr, pool);
    if (!generated.ok) return generated;
    // The body's text is written around the data URL: a base64 data URL (qr-encoder.ts) and the format
    // (png or svg) hold no character JSON escapes, and JSON.stringify would scan the ~14 KB of an SVG's
    // data URL character by character (~20 µs a request, about 2.5% of a QR request's CPU).
    const { dataUrl, format } = generated.value;
    return { ok: true, members: `"qrcode":{"dataUrl":"${dataUrl}"},"format":"${format}"` };
  };
}

/**
 * What the tool API uses of the shared pieces (its keys, windows and idempotency records, and the clock)
 * and the identity area's users port (the key owners' tiers).
 */
export type ToolsPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock'> & { users: UsersReadPort; usersAdmin: UsersAdminPort };

/**
 * The tool scheme the root installs in the auth hook, the key-use writer the routes' app closes, and the
 * listener that tells the key cache of other processes' writes (PostgreSQL; started with the routes).
 */
export interface ToolAuth {
  scheme: AuthScheme;
  lastUsed: LastUsedWriter;
  changes: ChannelListener | null;
  /** where the writer and the listener report failures (the app's logger, known once the routes are registered) */
  logTo(app: FastifyInstance): void;
}

export function createToolAuth(deps: ToolsPorts): ToolAuth {
  const db = deps.database.db;
  const now = () => deps.clock.now();
  let warn = (_err: unknown, _what: string) => {};
  // writers change the auth version after their commit: on PostgreSQL they notify a channel each server
  // listens on; on the embedded database, socket clients' queries bump the in-process store
  const { connectionString } = deps.database;
  const changes =
    deps.database.kind === 'postgres' && connectionString
      ? new ChannelListener(connectionString, TOOL_AUTH_CHANNEL, (err) =>
          warn(err, 'tool key change listener: connection lost, key cache off until it is back'),
        )
      : null;
  const version = changes ? () => changes.version() : deps.config.embedded ? storeAuthVersion(deps.counters.memory) : null;
  const authCache = new ToolAuthCache(version, () => epochMs(deps.clock), deps.users);
  const lastUsed = new LastUsedWriter(db, now, (err) => warn(err, 'tool key last_used_at not written'));
  return {
    scheme: toolAuthScheme(db, authCache, lastUsed, now),
    lastUsed,
    changes,
    logTo(app) {
      warn = (err, what) => app.log.warn({ err }, what);
    },
  };
}

export function registerToolRoutes(app: FastifyInstance, deps: ToolsPorts, auth: ToolAuth, opts: ToolRoutesOptions = {}): void {
  const db = deps.database.db;
  const now = () => deps.clock.now();
  const limiter = new ToolLimiter(deps.counters.shared, () => epochMs(deps.clock));
  const runner = new ToolRequestRunner({ db, limiter, now });
  auth.logTo(app);
  const lastUsed = auth.lastUsed;
  // Started on the first request that needs it, so processes that never render a QR code spawn no threads.
  let pool: QrWorkerPool | null = null;
  const qrPool = () => {
    pool ??= new QrWorkerPool(opts.qrWorkers);
    return pool;
  };
  // listening from the start; until it listens, keys are read from the database on every request
  void auth.changes?.start();
  app.addHook('onClose', async () => {
    await auth.changes?.stop();
    await lastUsed.close();
    await pool?.close();
  });
  for (const schema of TOOL_SHARED_SCHEMAS) app.addSchema(schema);

  app.register(
    async (tools) => {
      tools.decorateRequest('toolPrincipal', null);
      // Bodies are checked by the tools' parsers; the schemas document the API.
      tools.setValidatorCompiler(() => () => true);
      tools.setErrorHandler((err, request, reply) => renderToolError(request, reply, err));
      tools.removeAllContentTypeParsers();
      tools.addContentTypeParser(
        'application/json',
        // as text: Fastify decodes a body that came in one chunk without the copy it makes of a buffer body
        { parseAs: 'string', bodyLimit: TOOL_MAX_BODY_BYTES },
        (request, text: string, done) => {
          const max = request.toolPrincipal?.limits.maxBodyBytes ?? TOOL_MAX_BODY_BYTES;
          // a UTF-16 unit is 1-3 bytes of UTF-8 (a surrogate pair 4 for 2): counted only when it may matter
          if (text.length > max || (text.length * 3 > max && Buffer.byteLength(text) > max))
            return done(
              new AppError('payload_too_large', { message: `The body is larger than the ${max} bytes allowed for this tier.` }),
              undefined,
            );
          try {
            if (text.length === 0) return done(null, undefined);
            // duplicate keys, nesting and size are refused before parsing, as on every JSON body
            const issue = checkJsonShape(text);
            if (issue) return done(jsonShapeError('invalid_request', issue), undefined);
            // one scan of the text spares the U+0000 guard its walk over the parsed body
            noteJsonBodyText(request, text);
            done(null, JSON.parse(text));
          } catch {
            done(new AppError('invalid_request', { message: 'The body is not valid JSON.' }), undefined);
          }
        },
      );
      tools.addContentTypeParser('*', (_request, _payload, done) => {
        done(
          new AppError('invalid_request', { message: 'The body must be a JSON object sent as Content-Type: application/json.' }),
          undefined,
        );
      });

      const authBy = (tool: ToolName) => ({ scheme: TOOL_AUTH_SCHEME, requirement: tool });
      const security: Array<Record<string, string[]>> = [{ toolApiKey: [] }];

      tools.post(
        '/utm-builder/build',
        {
          config: { authBy: authBy('utm-builder') },
          schema: {
            operationId: 'buildUtmLinks',
            [IDEMPOTENT_REPLAY]: true,
            tags: ['Tools'],
            summary: 'Build UTM-tagged links',
            description:
              'Applies one set of UTM parameters to every URL. Each built link uses one link of the daily quota; invalid URLs use none.',
            security,
            headers: ToolHeaders,
            body: UtmBuildRequest,
            response: toolResponses(UtmBuildResponse),
          },
        },
        async (request, reply) => {
          const principal = principalOf(request);
          return runner.handle(request, reply, principal, 'utm-builder', (body): ToolPlan => {
            const parsed = parseUtmRequest(body);
            if (!parsed.ok) return { kind: 'invalid', message: parsed.message };
            const cap = principal.limits.utmLinksPerRequest;
            if (parsed.value.urls.length > cap) {
              return {
                kind: 'invalid',
                message: `\`urls\` holds ${parsed.value.urls.length} entries; the ${principal.tier} tier allows ${cap} per request.`,
              };
            }
            const result = buildUtmLinks(parsed.value);
            return { kind: 'run', units: result.links.length, run: resolved({ links: result.links, invalid: result.invalid }) };
          });
        },
      );

      tools.post(
        '/qrcode/generate',
        {
          config: { authBy: authBy('qrcode') },
          schema: {
            operationId: 'generateQrCode',
            [IDEMPOTENT_REPLAY]: true,
            tags: ['Tools'],
            summary: 'Generate a QR code',
            description: 'One QR code per request, as a PNG or SVG data URL. Uses one request of the daily quota.',
            security,
            headers: ToolHeaders,
            body: QrGenerateRequest,
            response: toolResponses(QrGenerateResponse),
          },
        },
        async (request, reply) => {
          const principal = principalOf(request);
          return runner.handle(request, reply, principal, 'qrcode', (body): ToolPlan => {
            const parsed = parseQrRequest(body);
            if (!parsed.ok) return { kind: 'invalid', message: parsed.message };
            return { kind: 'run', units: 1, run: qrWork(parsed.value, qrPool) };
          });
        },
      );
    },
    { prefix: TOOL_API_PREFIX },
  );
}
