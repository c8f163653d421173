/**
 * The automations area: the service (API and scheduler) and the runner (worker). The root hands it
 * publishing's and the media library's read interfaces and the batches area's committer.
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import { pruneOlderThan } from '../../platform/clock.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { PruneStep } from '../maintenance/maintenance.module.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import { automationJobDefinitions } from './automations.jobs.js';
import { registerAutomationRoutes } from './automations.routes.js';
import { AutomationsService } from './automations.service.js';
import { automationsRetentionRepository } from './automations-retention.repository.js';
import { AutomationRunner, type RunnerPorts } from './runner.js';

/** The port automations' product rotation commits batches through (the batches module provides it). */
export type { BatchCommitter } from './batch-committer.js';

export type AutomationsPorts = Pick<AppDeps, 'config' | 'database' | 'clock' | 'jobs' | 'events'> & {
  /** plans, slots, media imports, brand products and (when the batches area is built) the product_rotation committer */
  runner: RunnerPorts;
  /** the brands area's read port (a source's brand and products must exist) */
  brands: BrandsReadPort;
  /** the channels and profiles read ports (a source's targets and profile must be the organization's) */
  channels: ChannelsReadPort;
  profiles: ProfilesReadPort;
  /** the client feeds are fetched with */
  feedClient: GuardedHttpClient;
};

export interface AutomationsModule extends AreaModule {
  service: AutomationsService;
  runner: AutomationRunner;
  /** subscribed by the root to maintenance's prune: finished runs older than SERVICE_AUTOMATION_RUN_RETENTION_DAYS */
  pruneFinishedRuns: PruneStep;
}

export function createAutomationsModule(ports: AutomationsPorts): AutomationsModule {
  const service = new AutomationsService(ports, {
    brands: ports.brands,
    channels: ports.channels,
    profiles: ports.profiles,
    feedClient: ports.feedClient,
  });
  const runner = new AutomationRunner(ports, service, ports.runner, ports.feedClient);
  return {
    service,
    runner,
    read: undefined,
    pruneFinishedRuns: {
      name: 'automation_runs',
      prune: pruneOlderThan(ports.config.env.SERVICE_AUTOMATION_RUN_RETENTION_DAYS, automationsRetentionRepository.pruneFinishedRuns),
    },
    jobs: automationJobDefinitions(ports, service, runner),
    routes: (app: FastifyInstance) => registerAutomationRoutes(app, ports, service, runner),
  };
}
