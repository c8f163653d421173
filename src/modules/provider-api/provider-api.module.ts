/**
 * The provider API area (named apart from `src/providers/`, the platform adapters it serves): the
 * capabilities of every platform (`GET /v1/providers/capabilities`) and the provider tools run through a
 * connected channel (`POST /v1/providers/tools/{toolName}`). It reads channels only through the channels
 * area's read port.
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { AppDeps } from '../app-deps.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import { registerProviderRoutes } from './provider-api.routes.js';
import { ProviderToolsService } from './provider-tools.service.js';

export type ProvidersPorts = Pick<AppDeps, 'database'> & { registry: ProviderRegistry; channels: ChannelsReadPort };

export function createProvidersModule(ports: ProvidersPorts): AreaModule {
  const tools = new ProviderToolsService({ db: ports.database.db, registry: ports.registry, channels: ports.channels });
  return {
    read: undefined,
    jobs: [],
    routes: (app: FastifyInstance) => registerProviderRoutes(app, ports.registry, tools),
  };
}
