/**
 * Wires publish batches once per deps, and registers their hooks in other areas: the disconnect
 * counters of batch targets and the automations' product_rotation batch committer.
 */
import type { AppDeps } from '../../app-deps.js';
import type { JobDefinition } from '../../platform/queue/job-queue.js';
import { provideBatchCommitter } from '../automations/automations.module.js';
import { registerDisconnectHook } from '../channels/disconnect-hooks.js';
import { publishingModule } from '../publishing/publishing.module.js';
import { RotationBatchCommitter } from './batch-committer.js';
import { batchDisconnectHook } from './batch-disconnect.js';
import { batchCompletionJob } from './batches.jobs.js';
import { BatchesService } from './batches.service.js';

export interface BatchesModule {
  service: BatchesService;
}

const modules = new WeakMap<AppDeps, BatchesModule>();

export function batchesModule(deps: AppDeps): BatchesModule {
  const existing = modules.get(deps);
  if (existing) return existing;
  const m = { service: new BatchesService(deps, publishingModule(deps)) };
  modules.set(deps, m);
  return m;
}

// registered on import: the API and a worker-only process both load this module
registerDisconnectHook(batchDisconnectHook);
provideBatchCommitter((deps) => new RotationBatchCommitter(deps, batchesModule(deps).service));

/** The publishing worker publishes batch targets; batches only add the completion event job. */
export function batchesJobDefinitions(deps: AppDeps): JobDefinition<any>[] {
  return [batchCompletionJob(deps, batchesModule(deps).service)];
}
