/** The analytics area: the service (API and the periodic sync job). */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { TokenVault } from '../channels/token-vault.js';
import { analyticsJobDefinitions } from './analytics.jobs.js';
import { registerAnalyticsRoutes } from './analytics.routes.js';
import { AnalyticsService } from './analytics.service.js';

export type AnalyticsPorts = Pick<AppDeps, 'config' | 'database' | 'clock'> & { registry: ProviderRegistry; vault: TokenVault };

export interface AnalyticsModule extends AreaModule {
  service: AnalyticsService;
}

export function createAnalyticsModule(ports: AnalyticsPorts): AnalyticsModule {
  const service = new AnalyticsService(ports, ports.registry, ports.vault);
  return {
    service,
    read: undefined,
    jobs: analyticsJobDefinitions(ports, service),
    routes: (app: FastifyInstance) => registerAnalyticsRoutes(app, service),
  };
}
