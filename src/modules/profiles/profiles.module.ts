/**
 * Publishing profiles: a brand's named sets of channels with their per-channel, schedule and comment
 * settings (tables: profiles.tables.ts). Other areas read profiles through ProfilesReadPort; it reads
 * channels and brands through their read ports and reacts to a channel's disconnect (subscribed by the root).
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort, DisconnectHook } from '../channels/channels.module.js';
import { type ProfilesReadPort, profilesReadPort } from './profiles.publishing.js';
import { profilesRepository } from './profiles.repository.js';
import { registerProfileRoutes } from './profiles.routes.js';
import { ProfilesService } from './profiles.service.js';

export type { ProfileExpansion, ProfilesReadPort } from './profiles.publishing.js';

export type ProfilesPorts = Pick<AppDeps, 'database' | 'clock'> & { channels: ChannelsReadPort; brands: BrandsReadPort };

export interface ProfilesModule extends AreaModule<ProfilesReadPort> {
  service: ProfilesService;
  /** subscribed by the root to channel disconnects: the channel's profile entries are disabled */
  onChannelDisconnect: DisconnectHook;
}

export function createProfilesModule(ports: ProfilesPorts): ProfilesModule {
  const service = new ProfilesService(ports.database.db, ports.clock, { channels: ports.channels, brands: ports.brands });
  return {
    service,
    read: profilesReadPort(ports.channels),
    jobs: [],
    onChannelDisconnect: async (tx, organizationId, channelAccountId, now) => ({
      disabledPublishingProfileChannelCount: await profilesRepository.disableChannelAccount(tx, organizationId, channelAccountId, now),
    }),
    routes: (app: FastifyInstance) => registerProfileRoutes(app, service),
  };
}
