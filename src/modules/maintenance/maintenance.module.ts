/** Maintenance: the periodic prune of expired rows (jobs only, no routes); areas prune their own tables through the steps the root subscribes. */

import type { AreaModule } from '../../http/area-module.js';
import type { Subscribers } from '../../platform/events/subscribers.js';
import type { AppDeps } from '../app-deps.js';
import { maintenanceJob, type PruneStep } from './maintenance.jobs.js';
import { pruneOptions } from './maintenance.prune.js';

export type { PruneStep } from './maintenance.jobs.js';
export { pruneOnce } from './maintenance.prune.js';

export type MaintenancePorts = Pick<AppDeps, 'database' | 'clock' | 'config'> & { prunes: Subscribers<PruneStep> };

export function createMaintenanceModule(ports: MaintenancePorts): AreaModule {
  return {
    read: undefined,
    jobs: [maintenanceJob(ports.database.db, () => ports.clock.now(), ports.prunes, pruneOptions(ports.config.env))],
    routes: () => undefined,
  };
}
