/** Analytics routes (ROUTES.md, Analytics and engagement). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/public-auth.js';
import { errorResponses, PUBLIC_AUTH_ERRORS } from '../../http/shared-schemas.js';
import type { AnalyticsModule } from './analytics.module.js';
import {
  ANALYTICS_SCHEMAS,
  AnalyticsSnapshotList,
  ProviderAnalyticsSyncRequest,
  ProviderAnalyticsSyncResponse,
  SnapshotListQuery,
} from './analytics.schemas.js';

const security = [{ publicBearer: [] }];
const tags = ['Analytics'];

export function registerAnalyticsRoutes(root: FastifyInstance, m: AnalyticsModule): void {
  for (const s of ANALYTICS_SCHEMAS) root.addSchema(s);
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const svc = m.service;
  const org = (request: Parameters<typeof principalOf>[0]) => principalOf(request).organizationId;

  app.get(
    '/v1/analytics/snapshots',
    {
      config: { auth: { scope: 'analytics:read' }, validationCode: 'invalid_public_analytics_snapshot_query' },
      schema: {
        operationId: 'listAnalyticsSnapshots',
        tags,
        summary: 'List stored analytics snapshots, newest first, filtered by brand, channel, post target, platform and capture time',
        security,
        querystring: SnapshotListQuery,
        response: { 200: AnalyticsSnapshotList, ...errorResponses('invalid_public_analytics_snapshot_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => svc.list(org(request), request.query),
  );

  app.post(
    '/v1/analytics/sync',
    {
      config: { auth: { scope: 'analytics:write' }, validationCode: 'invalid_request' },
      schema: {
        operationId: 'syncProviderAnalytics',
        tags,
        summary: "Read a post's metrics from its platform now; stores an append-only snapshot when dryRun is false (default true)",
        description:
          'A metric the platform did not report is null, never 0. 404 channel_account_not_found; 409 channel_account_not_connected when the channel needs reconnecting; 429 provider_rate_limited with Retry-After; 502 provider_request_failed.',
        security,
        body: ProviderAnalyticsSyncRequest,
        response: {
          200: ProviderAnalyticsSyncResponse,
          ...errorResponses(
            'invalid_request',
            'channel_account_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
            ...PUBLIC_AUTH_ERRORS,
          ),
        },
      },
    },
    async (request) => svc.sync(org(request), request.body),
  );
}
