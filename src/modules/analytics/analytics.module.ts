/** The analytics area: the service (API and the periodic sync job). */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { PublishTargetsReadPort } from '../publishing/publishing.module.js';
import { analyticsJobDefinitions } from './analytics.jobs.js';
import { registerAnalyticsRoutes } from './analytics.routes.js';
import { AnalyticsService } from './analytics.service.js';

export type AnalyticsPorts = Pick<AppDeps, 'config' | 'database' | 'clock'> & {
  channels: ChannelsReadPort;
  brands: BrandsReadPort;
  /** publishing's published targets (the sync's candidates, a sync request's target) */
  targets: PublishTargetsReadPort;
};

export interface AnalyticsModule extends AreaModule {
  service: AnalyticsService;
}

export function createAnalyticsModule(ports: AnalyticsPorts): AnalyticsModule {
  const service = new AnalyticsService(ports, ports);
  return {
    service,
    read: undefined,
    jobs: analyticsJobDefinitions(ports, service),
    routes: (app: FastifyInstance) => registerAnalyticsRoutes(app, service),
  };
}
