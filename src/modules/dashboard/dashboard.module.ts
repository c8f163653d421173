/** The dashboard: the web app's static files. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import { registerDashboardRoutes } from './dashboard.routes.js';

export function createDashboardModule(): AreaModule {
  return { read: undefined, jobs: [], routes: (app: FastifyInstance) => registerDashboardRoutes(app) };
}
