/**
 * Publishing profiles: a brand's named sets of channels with their per-channel, schedule and comment
 * settings. Its tables are declared beside the channels' (channels.tables.ts); other areas read
 * profiles through ProfilesReadPort.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import { type ProfilesReadPort, profilesReadPort } from './profiles.publishing.js';
import { registerProfileRoutes } from './profiles.routes.js';
import { ProfilesService } from './profiles.service.js';

export type { ProfileExpansion, ProfilesReadPort } from './profiles.publishing.js';

export type ProfilesPorts = Pick<AppDeps, 'database' | 'clock'>;

export interface ProfilesModule extends AreaModule<ProfilesReadPort> {
  service: ProfilesService;
}

export function createProfilesModule(ports: ProfilesPorts): ProfilesModule {
  const service = new ProfilesService(ports.database.db, ports.clock);
  return {
    service,
    read: profilesReadPort,
    jobs: [],
    routes: (app: FastifyInstance) => registerProfileRoutes(app, service),
  };
}
