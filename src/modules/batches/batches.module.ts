/**
 * The batches area: publish batches, their completion job, the automations' product_rotation batch
 * committer it provides, and its reaction to a channel disconnect (subscribed by the root).
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps } from '../app-deps.js';
import type { BatchCommitter } from '../automations/automations.module.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { PruneStep } from '../maintenance/maintenance.module.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import type { PublishingBatchPort } from '../publishing/publishing.module.js';
import { RotationBatchCommitter } from './batch-committer.js';
import { batchDisconnectHook } from './batch-disconnect.js';
import { BatchCommits } from './batches.commits.js';
import { batchCompletionJob } from './batches.jobs.js';
import { BatchReads } from './batches.reads.js';
import { batchesRepository } from './batches.repository.js';
import { registerBatchRoutes } from './batches.routes.js';

/** Publishing's batch port, profiles' and brands' read ports: batches read and write no other area's tables. */
export type BatchesPorts = Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'> & {
  publishing: PublishingBatchPort;
  profiles: ProfilesReadPort;
  brands: BrandsReadPort;
};

export interface BatchesModule extends AreaModule<{ committer: BatchCommitter }> {
  /** status, listing and assets */
  reads: BatchReads;
  /** preview, commit and replays */
  commits: BatchCommits;
  /** subscribed by the root to maintenance's prune: previews past their expiry */
  pruneExpiredPreviews: PruneStep;
  /** subscribed by the root to channel disconnects */
  onChannelDisconnect: ReturnType<typeof batchDisconnectHook>;
}

export function createBatchesModule(ports: BatchesPorts): BatchesModule {
  const reads = new BatchReads(ports, ports.publishing);
  const commits = new BatchCommits(ports, { publishing: ports.publishing, profiles: ports.profiles, brands: ports.brands }, reads);
  return {
    reads,
    commits,
    read: { committer: new RotationBatchCommitter(ports.database.db, commits) },
    // the publishing worker publishes batch targets; batches only add the completion event job
    jobs: [batchCompletionJob(ports, reads)],
    onChannelDisconnect: batchDisconnectHook(ports.publishing),
    pruneExpiredPreviews: { name: 'expiredBatchPreviews', prune: batchesRepository.deleteExpiredPreviews },
    routes: (app: FastifyInstance) => registerBatchRoutes(app, reads, commits),
  };
}
