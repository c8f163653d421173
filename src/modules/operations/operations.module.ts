/** Operations: the metrics endpoint. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps } from '../app-deps.js';
import { registerMetricsRoutes } from './metrics.routes.js';

export type OperationsPorts = Pick<AppDeps, 'metrics'>;

export function createOperationsModule(ports: OperationsPorts): AreaModule {
  return { read: undefined, jobs: [], routes: (app: FastifyInstance) => registerMetricsRoutes(app, ports) };
}
