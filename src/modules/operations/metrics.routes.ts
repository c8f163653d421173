/**
 * GET /v1/internal/metrics: the Prometheus text exposition of this process (policy admin.metrics.read:
 * internal or service principal token only), and the hook that times every HTTP request by its route
 * pattern (never the raw URL, whose ids would explode the series count) and status code.
 */
import type { FastifyInstance } from 'fastify';
import { requirePolicy } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import type { AppDeps } from '../app-deps.js';

const METRICS_PATH = '/v1/internal/metrics';

export function registerMetricsRoutes(app: FastifyInstance, deps: Pick<AppDeps, 'metrics'>): void {
  const { metrics } = deps;

  // `done` rather than async: every request runs this hook (no promise per request)
  app.addHook('onResponse', (request, reply, done) => {
    // requests no route matched (404s, framework errors) share one label
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get(
    METRICS_PATH,
    {
      config: requirePolicy('admin.metrics.read'),
      schema: {
        operationId: 'getInternalMetrics',
        tags: ['Operations'],
        summary: 'Internal: Prometheus metrics of this process',
        description:
          'The Prometheus text exposition format (version 0.0.4): HTTP, job, publish lateness, provider call, webhook delivery, counter-store and process metrics. Needs `x-service-internal-token` (or `x-service-principal-token`); refused from browsers.',
        security: [{ internalServiceToken: [] }],
        response: {
          200: {
            description: 'Metrics in the Prometheus text format.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses('internal_token_required', 'permission_denied', 'internal_server_error'),
        },
      },
    },
    async (_request, reply) => {
      const body = await metrics.scrape();
      return reply.header('cache-control', 'no-store').type(metrics.contentType).send(body);
    },
  );
}
