/** The analytics area: the service (API), the periodic sync and its job. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort, ChannelsTokenProblemsPort } from '../channels/channels.module.js';
import type { PublishTargetsReadPort } from '../publishing/publishing.module.js';
import { analyticsJobDefinitions } from './analytics.jobs.js';
import { registerAnalyticsRoutes } from './analytics.routes.js';
import { AnalyticsService } from './analytics.service.js';
import { AnalyticsSync } from './analytics.sync.js';

export type AnalyticsPorts = Pick<AppDeps, 'config' | 'database' | 'clock'> & {
  channels: ChannelsReadPort;
  /** a channel whose token the platform refuses during the sync needs a reconnect */
  tokenProblems: ChannelsTokenProblemsPort;
  brands: BrandsReadPort;
  /** publishing's published targets (the sync's candidates, a sync request's target) */
  targets: PublishTargetsReadPort;
};

export interface AnalyticsModule extends AreaModule {
  service: AnalyticsService;
  /** the periodic sync of published posts' snapshots */
  sync: AnalyticsSync;
}

export function createAnalyticsModule(ports: AnalyticsPorts): AnalyticsModule {
  const service = new AnalyticsService(ports, ports);
  const sync = new AnalyticsSync(ports, service);
  return {
    service,
    sync,
    read: undefined,
    jobs: analyticsJobDefinitions(ports, sync),
    routes: (app: FastifyInstance) => registerAnalyticsRoutes(app, service),
  };
}
