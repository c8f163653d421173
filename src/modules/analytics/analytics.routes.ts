/** Analytics routes (ROUTES.md "Analytics and engagement"): snapshot list and provider analytics sync. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import {
  AnalyticsSnapshot,
  AnalyticsSnapshotList,
  AnalyticsSnapshotQuery,
  ProviderAnalyticsSyncRequest,
  ProviderAnalyticsSyncResponse,
} from './analytics.schemas.js';
import type { AnalyticsService } from './analytics.service.js';

const tags = ['Analytics'];

export function registerAnalyticsRoutes(root: FastifyInstance, service: AnalyticsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(AnalyticsSnapshot);

  app.get(
    '/v1/analytics/snapshots',
    {
      config: { ...publicOrDashboard('analytics:read', 'publishing.jobs.read'), validationCode: 'invalid_public_analytics_snapshot_query' },
      schema: {
        operationId: 'listAnalyticsSnapshots',
        tags,
        summary: 'List analytics snapshots, newest capture first; filter by brand, channel, platform, post target and capture time',
        querystring: AnalyticsSnapshotQuery,
        response: {
          200: AnalyticsSnapshotList,
          ...errorResponses('invalid_public_analytics_snapshot_query'),
        },
      },
    },
    async (request) => service.list(organizationOf(request), request.query),
  );

  app.post(
    '/v1/analytics/sync',
    {
      config: {
        ...publicOrDashboard('analytics:write', 'analytics.provider_sync.manage'),
        validationCode: 'invalid_public_analytics_sync_request',
      },
      schema: {
        operationId: 'syncProviderAnalytics',
        tags,
        summary: "Read a published post's metrics from its platform; dryRun (default true) answers without storing",
        description:
          'Metrics the platform did not report are null. 404 channel_account_not_found / brand_not_found; 409 channel_account_not_connected when the channel needs reconnecting or the platform refuses its token; 429 provider_rate_limited with Retry-After; 502 provider_request_failed.',
        body: ProviderAnalyticsSyncRequest,
        response: {
          200: ProviderAnalyticsSyncResponse,
          ...errorResponses(
            'organization_not_found',
            'channel_account_not_found',
            'brand_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
          ),
        },
      },
    },
    async (request) => service.sync(organizationOf(request), request.body),
  );
}
