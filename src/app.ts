/**
 * buildApp(deps): the Fastify application with every area's routes. No infrastructure is created
 * here (that is src/main/runtime.ts); tests call buildApp with a harness's deps.
 */
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { AppDeps } from './app-deps.js';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './http/error-handler.js';
import { formatsPlugin, requestLogSerializer } from './http/input-guards.js';
import { registerOpenApi } from './http/openapi.js';
import { installPublicAuth } from './http/public-auth.js';
import { ErrorResponse } from './http/shared-schemas.js';
import { analyticsModule } from './modules/analytics/analytics.module.js'; // analytics
import { registerAnalyticsRoutes } from './modules/analytics/analytics.routes.js'; // analytics
import { automationsModule } from './modules/automations/automations.module.js';
// automations: import its module here
import { registerAutomationRoutes } from './modules/automations/automations.routes.js';
// batches: import its module here
import { batchesModule } from './modules/batches/batches.module.js';
import { registerBatchRoutes } from './modules/batches/batches.routes.js';
import { registerBrandRoutes } from './modules/brands/brands.routes.js';
import { Brand, BrandProduct } from './modules/brands/brands.schemas.js';
import { BrandsService } from './modules/brands/brands.service.js';
import { registerChannelsModule } from './modules/channels/channels.module.js';
// engagement: import its module here
import { commentsModule } from './modules/comments/comments.module.js';
import { registerCommentRoutes } from './modules/comments/comments.routes.js';
// dashboard: import its module here
import { registerDashboardRoutes } from './modules/dashboard/dashboard.routes.js';
import { registerHealthRoutes } from './modules/health/health.routes.js';
// auth: import its module here
import { registerAuthModule } from './modules/identity/auth.module.js';
import { createMediaModule } from './modules/media/media.module.js';
import { registerMediaRoutes } from './modules/media/media.routes.js';
// hardening: import its module here
import { registerMetricsRoutes } from './modules/operations/metrics.routes.js'; // metrics
import { providerWebhooksModule } from './modules/provider-webhooks/provider-webhooks.module.js'; // provider webhooks
import { registerProviderWebhookRoutes } from './modules/provider-webhooks/provider-webhooks.routes.js'; // provider webhooks
import { publishingModule } from './modules/publishing/publishing.module.js';
import { registerPublishingRoutes } from './modules/publishing/publishing.routes.js';
import { PlanIssueSchema, PublishTargetErrorSchema } from './modules/publishing/publishing.schemas.js';
import { registerToolRoutes } from './modules/tools/tools.routes.js';
// webhooks: import its module here
import { webhooksModule } from './modules/webhooks/webhooks.module.js';
import { registerWebhookRoutes } from './modules/webhooks/webhooks.routes.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppServices {
  brands: BrandsService;
}

/** pino-pretty for people at a terminal (the runtime's logger uses it too). */
export const PRETTY_TRANSPORT = { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } };

/** Health probes, the API reference and the document: polled often, logged at debug when they succeed. */
function isQuietUrl(url: string): boolean {
  return url.startsWith('/v1/health/') || url.startsWith('/v1/docs') || url.startsWith('/v1/openapi.json');
}

export async function buildApp(deps: AppDeps, opts: { logger?: boolean | object } = {}): Promise<FastifyInstance> {
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
    // human-readable on a terminal, JSON lines otherwise
    ...(process.stdout.isTTY ? { transport: PRETTY_TRANSPORT } : {}),
  };
  const app = Fastify({
    // an object given by the caller (e.g. a stream) keeps the redaction of the defaults
    logger: opts.logger === undefined || opts.logger === true ? defaultLogger : opts.logger && { ...defaultLogger, ...opts.logger },
    trustProxy: env.SERVICE_TRUST_PROXY,
    bodyLimit: env.SERVICE_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // a request that stops arriving (an upload cut off mid-body) is closed instead of holding a socket
    requestTimeout: env.SERVICE_REQUEST_TIMEOUT_SECONDS * 1000,
    connectionTimeout: env.SERVICE_CONNECTION_IDLE_TIMEOUT_SECONDS * 1000,
    frameworkErrors,
    clientErrorHandler,
    requestIdHeader: false,
    // probes and the docs are logged by the hook below: debug when they succeed
    logController: new LogController({ disableRequestLogging: (req: { url?: string }) => isQuietUrl(req.url ?? '') }),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomBytes(10).toString('hex')}`;
    },
    ajv: {
      customOptions: {
        // reject unknown properties instead of silently dropping them (the spec's shapes are closed)
        removeAdditional: false,
        useDefaults: true,
        coerceTypes: 'array',
        allErrors: false,
      },
      // date-time bounded to years 1900-2999 for every schema
      plugins: [formatsPlugin],
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!isQuietUrl(request.url)) return;
    const level = reply.statusCode < 300 ? 'debug' : 'info';
    request.log[level]({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });
  // bodies are JSON (routes that take more register their parsers); any other type answers 415
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app);
  app.addSchema(ErrorResponse);
  app.addSchema(BrandProduct);
  app.addSchema(Brand);
  // publishing: shared components referenced more than once in one body
  app.addSchema(PlanIssueSchema);
  app.addSchema(PublishTargetErrorSchema);
  await registerOpenApi(app, { publicBaseUrl: deps.config.publicBaseUrl });
  installPublicAuth(app, deps);

  const services: AppServices = { brands: new BrandsService(deps.database.db) };
  registerHealthRoutes(app, deps);
  registerBrandRoutes(app, services.brands);
  // tools: register the tool API routes here
  registerToolRoutes(app, deps);
  // media: register the media routes here
  await registerMediaRoutes(app, deps, createMediaModule(deps));
  // channels: register channel, provider and profile routes here
  await registerChannelsModule(app, deps);
  // publishing: register publishing routes here
  await registerPublishingRoutes(app, deps, publishingModule(deps));
  // auth: register its routes here
  await registerAuthModule(app, deps);

  // batches: register its routes here
  registerBatchRoutes(app, batchesModule(deps).service);

  // webhooks: register its routes here
  await registerWebhookRoutes(app, deps, webhooksModule(deps));

  // engagement: register its routes here
  registerCommentRoutes(app, commentsModule(deps));
  registerAnalyticsRoutes(app, analyticsModule(deps).service); // analytics

  // automations: register its routes here
  registerAutomationRoutes(app, deps, automationsModule(deps).service);

  // hardening: register its routes here
  registerMetricsRoutes(app, deps); // metrics
  await registerProviderWebhookRoutes(app, providerWebhooksModule(deps)); // provider webhooks

  // dashboard: register its routes here
  registerDashboardRoutes(app);

  return app;
}
