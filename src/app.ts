/**
 * buildApp(root): the Fastify application with every area's routes, in the order of the composition
 * root's module list (src/main/composition.ts builds the root; AppRoot below is what this file reads of it).
 * No infrastructure is created here (that is src/main/runtime.ts); tests call buildApp with a harness's root.
 */
import { randomFillSync } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { AreaModule } from './http/area-module.js';
import { type DashboardAuthPort, installDashboardAuth } from './http/dashboard-auth.js';
import { errorHandling } from './http/error-handler.js';
import { waitForHandlersOnClose } from './http/handlers-in-flight.js';
import { formatsPlugin, requestLogSerializer } from './http/input-guards.js';
import { LazySchemas, type SchemaCompileFailure } from './http/lazy-schemas.js';
import { registerOpenApi } from './http/openapi.js';
import { installPublicAuth, type PublicAuthenticator } from './http/public-auth.js';
import { installRouteSecurity } from './http/route-security.js';
import { ErrorResponse } from './http/shared-schemas.js';
import { AJV_CUSTOM_OPTIONS, partAwareValidatorBuilder } from './http/validator.js';
import type { AppDeps } from './modules/app-deps.js';
import { MediaInput, PlanIssueSchema, PublishTargetErrorSchema, PublishTargetInput } from './modules/publishing/publishing.schemas.js';
import { deferredChildLogger } from './platform/logging/deferred-child-logger.js';
import { redactingLogOptions } from './platform/logging/redact.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** compiles the route schemas no request has used yet (a server calls it once it listens) */
    compileRemainingSchemas(): Promise<SchemaCompileFailure[]>;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** 80 random bits per request id, drawn from a buffer refilled every 256 ids (one CSPRNG call each). */
const ID_BYTES = 10;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;
function newRequestId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString('hex', idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `req_${id}`;
}

/** pino-pretty for people at a terminal (the runtime's logger uses it too). */
export const PRETTY_TRANSPORT = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } };

/** Health probes, the API reference and the document: polled often, logged at debug when they succeed. */
function isQuietUrl(url: string): boolean {
  return url.startsWith('/v1/health/') || url.startsWith('/v1/docs') || url.startsWith('/v1/openapi.json');
}

/**
 * Fastify's request lines, with its info lines (incoming, completed) not even called for when the level is
 * above info (two calls and their objects on every request); error and warning lines as Fastify writes them.
 */
class RequestLogController extends LogController {
  constructor(
    private readonly infoLines: boolean,
    options: ConstructorParameters<typeof LogController>[0],
  ) {
    super(options);
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (this.infoLines) super.incomingRequest(request, reply);
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || this.infoLines) super.requestCompleted(error, request, reply);
  }
}

/** What buildApp reads of the composition root: the infrastructure, the areas in order, identity's authenticator. */
export interface AppRoot {
  deps: AppDeps;
  modules: AreaModule<unknown>[];
  areas: { identity: { read: { authenticator: PublicAuthenticator; dashboardAuth: DashboardAuthPort } } };
}

export async function buildApp(root: AppRoot, opts: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
  const { deps } = root;
  const env = deps.config.env;
  const defaultLogger = {
    level: env.SERVICE_LOG_LEVEL,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers.cookie',
        'req.headers["x-service-internal-token"]',
        'req.headers["x-service-principal-token"]',
        'res.headers["set-cookie"]',
      ],
      censor: '[redacted]',
    },
    // request URLs are logged with secret query parameters (signatures, OAuth codes and tokens) redacted
    serializers: { req: requestLogSerializer },
    // and every line written, whatever logged it (an error's message or details may carry a URL)
    ...redactingLogOptions(),
    // human-readable on a terminal, JSON lines otherwise
    ...(process.stdout.isTTY ? { transport: PRETTY_TRANSPORT } : {}),
  };
  // the areas' own error shapes (the tool API's) apply from the first byte: parser errors included
  const errors = errorHandling(root.modules.flatMap((m) => (m.errorEnvelope ? [m.errorEnvelope] : [])));
  const schemas = new LazySchemas();
  // an object given by the caller (e.g. a stream) keeps the redaction of the defaults
  const logger = opts.logger === undefined || opts.logger === true ? defaultLogger : opts.logger && { ...defaultLogger, ...opts.logger };
  // Requests' own lines (Fastify's incoming and completed at info, the quiet URLs' at debug or info) are only
  // written at info and below: above it, neither Fastify's calls for them nor the hook below run per request.
  const level = logger ? ((logger as { level?: string }).level ?? 'info') : 'silent';
  const requestLines = ['trace', 'debug', 'info'].includes(level);
  const app = Fastify({
    logger,
    trustProxy: env.SERVICE_TRUST_PROXY,
    bodyLimit: env.SERVICE_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // a request that stops arriving (an upload cut off mid-body) is closed instead of holding a socket
    requestTimeout: env.SERVICE_REQUEST_TIMEOUT_SECONDS * 1000,
    connectionTimeout: env.SERVICE_CONNECTION_IDLE_TIMEOUT_SECONDS * 1000,
    frameworkErrors: errors.frameworkErrors,
    clientErrorHandler: errors.clientErrorHandler,
    requestIdHeader: false,
    // the request's pino child is made when the request first logs at an enabled level (deferred-child-logger.ts)
    childLoggerFactory: deferredChildLogger,
    // probes and the docs are logged by the hook below: debug when they succeed
    logController: new RequestLogController(requestLines, { disableRequestLogging: (req: { url?: string }) => isQuietUrl(req.url ?? '') }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
    },
    // bodies are validated without type conversion; query strings and path parameters are converted (validator.ts)
    // (the cast: Fastify's types declare the compiled function as taking the schema; it is given { schema, httpPart })
    // and each route's validators and serializers are compiled on first use (lazy-schemas.ts)
    schemaController: {
      compilersFactory: {
        buildValidator: schemas.validators(partAwareValidatorBuilder()) as never,
        buildSerializer: schemas.serializers() as never,
      },
    },
    ajv: {
      customOptions: { ...AJV_CUSTOM_OPTIONS },
      // date-time bounded to years 1900-2999 for every schema
      plugins: [formatsPlugin],
    },
  });

  app.decorate('compileRemainingSchemas', () => schemas.compileRemaining());
  // hooks every request runs take `done` rather than being async (no promise per request; input-guards.ts)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  if (requestLines)
    app.addHook('onResponse', (request, reply, done) => {
      if (isQuietUrl(request.url)) {
        const level = reply.statusCode < 300 ? 'debug' : 'info';
        request.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
      }
      done();
    });
  // closing waits for the route handlers still running (a client that left takes its connection, not its handler)
  waitForHandlersOnClose(app, deps.config.env.SERVICE_SHUTDOWN_TIMEOUT_SECONDS * 1000);
  // bodies are JSON (routes that take more register their parsers); any other type answers 415
  app.removeContentTypeParser('text/plain');
  // derived before the other route hooks read a route's schema (the validation code joins its 400 answer)
  installRouteSecurity(app);
  errors.install(app);
  app.addSchema(ErrorResponse);
  // publishing: shared components referenced more than once in one body
  app.addSchema(PlanIssueSchema);
  app.addSchema(MediaInput);
  app.addSchema(PublishTargetInput);
  app.addSchema(PublishTargetErrorSchema);
  // the authentication checks are added to each route as it is added (onRoute): installed before any route
  installPublicAuth(
    app,
    deps,
    root.areas.identity.read.authenticator,
    root.modules.flatMap((m) => (m.authScheme ? [m.authScheme] : [])),
  );
  installDashboardAuth(app, deps, root.areas.identity.read.dashboardAuth);
  await registerOpenApi(app, { publicBaseUrl: deps.config.publicBaseUrl });
  for (const module of root.modules) await module.routes(app);
  return app;
}
