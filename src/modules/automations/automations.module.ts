/** Wires automations once per deps: the service (API and scheduler) and the runner (worker). */
import type { AppDeps } from '../../app-deps.js';
import { createMediaModule } from '../media/media.module.js';
import { publishingModule } from '../publishing/publishing.module.js';
import { AutomationsService } from './automations.service.js';
import type { BatchCommitter } from './batch-committer.js';
import { AutomationRunner, type RunnerPorts } from './runner.js';

export interface AutomationsModule {
  service: AutomationsService;
  runner: AutomationRunner;
}

const modules = new WeakMap<AppDeps, AutomationsModule>();

/** The batches area's committer, when it is part of the build (product_rotation fails without it). */
let batchCommitterFactory: ((deps: AppDeps) => BatchCommitter) | null = null;
export function provideBatchCommitter(factory: (deps: AppDeps) => BatchCommitter): void {
  batchCommitterFactory = factory;
}

export function automationsModule(deps: AppDeps): AutomationsModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const service = new AutomationsService(deps);
  let ports: RunnerPorts | null = null;
  const runner = new AutomationRunner(deps, service, () => {
    if (!ports) {
      const publishing = publishingModule(deps);
      ports = {
        plans: publishing.plans,
        slots: publishing.slots,
        imports: createMediaModule(deps).imports,
        batches: batchCommitterFactory ? batchCommitterFactory(deps) : null,
      };
    }
    return ports;
  });
  const m = { service, runner };
  modules.set(deps, m);
  return m;
}
