/** Health: liveness, readiness and storage checks. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps, StorageHealth } from '../app-deps.js';
import { registerHealthRoutes } from './health.routes.js';

export type HealthPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock' | 'version'> & {
  storageHealth: () => Promise<StorageHealth>;
};

export function createHealthModule(ports: HealthPorts): AreaModule {
  return { read: undefined, jobs: [], routes: (app: FastifyInstance) => registerHealthRoutes(app, ports) };
}
