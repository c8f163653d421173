/** Maintenance: the periodic prune of expired rows (jobs only, no routes). */
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import { maintenanceJob } from './maintenance.jobs.js';

export function createMaintenanceModule(deps: Pick<AppDeps, 'database' | 'clock'>): AreaModule {
  return { read: undefined, jobs: [maintenanceJob(deps.database.db, () => deps.clock.now())], routes: () => undefined };
}
