/** Maintenance: the periodic prune of expired rows (jobs only, no routes). */
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import { maintenanceJob } from './maintenance.jobs.js';

export type MaintenancePorts = Pick<AppDeps, 'database' | 'clock'>;

export function createMaintenanceModule(ports: MaintenancePorts): AreaModule {
  return { read: undefined, jobs: [maintenanceJob(ports.database.db, () => ports.clock.now())], routes: () => undefined };
}
