/**
 * Wires channels, provider capabilities and tools, publishing profiles and (in sandbox mode) the
 * simulators into the app. buildApp calls registerChannelsModule once.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { metricsOf } from '../../platform/metrics/index.js';
import { createProviderRegistry, type ProviderRegistry, providerAppConfigs } from '../../providers/registry.js';
import { registerSandbox, type SandboxHandle } from '../../sandbox/sandbox.plugin.js';
import { registerProfileRoutes } from '../profiles/profiles.routes.js';
import { ProfilesService } from '../profiles/profiles.service.js';
import { ProviderToolsService } from '../providers/provider-tools.service.js';
import { registerProviderRoutes } from '../providers/providers.routes.js';
import { ChannelCallbackService } from './channel-callback.service.js';
import { ChannelChoiceService } from './channel-choice.service.js';
import { registerChannelConnectRoutes } from './channel-connect.routes.js';
import { ChannelConnectService } from './channel-connect.service.js';
import { registerChannelRoutes } from './channels.routes.js';
import { ChannelAccount } from './channels.schemas.js';
import { ChannelsService } from './channels.service.js';
import { TokenVault } from './token-vault.js';

export interface ChannelsModule {
  registry: ProviderRegistry;
  vault: TokenVault;
  channels: ChannelsService;
  profiles: ProfilesService;
  /** the mounted simulators (sandbox mode only) */
  sandbox: SandboxHandle | null;
}

const modules = new WeakMap<FastifyInstance, ChannelsModule>();

/** The module registered on an app (tests and the publishing engine's wiring read it). */
export function channelsModuleOf(app: FastifyInstance): ChannelsModule {
  const m = modules.get(app);
  if (!m) throw new Error('channels module not registered on this app');
  return m;
}

export async function registerChannelsModule(app: FastifyInstance, deps: AppDeps): Promise<ChannelsModule> {
  const db = deps.database.db;
  const registry = createProviderRegistry(deps.config, {}, metricsOf(deps));
  const vault = new TokenVault(deps.encryptor, deps.config);
  const channels = new ChannelsService({
    db,
    vault,
    registry,
    clock: deps.clock,
    events: deps.events,
  });
  const profiles = new ProfilesService(db, deps.clock);
  const connect = new ChannelConnectService({
    db,
    config: deps.config,
    registry,
    encryptor: deps.encryptor,
    clock: deps.clock,
  });
  const callback = new ChannelCallbackService({
    db,
    registry,
    vault,
    encryptor: deps.encryptor,
    clock: deps.clock,
    events: deps.events,
  });
  if (!app.getSchema('ChannelAccount')) app.addSchema(ChannelAccount);
  registerChannelRoutes(app, channels);
  registerChannelConnectRoutes(app, {
    connect,
    callback,
    choice: new ChannelChoiceService({
      db,
      registry,
      vault,
      encryptor: deps.encryptor,
      clock: deps.clock,
      events: deps.events,
    }),
    channels,
  });
  registerProviderRoutes(app, registry, new ProviderToolsService({ db, vault, registry }));
  registerProfileRoutes(app, profiles);
  const sandbox = registry.mode === 'sandbox' ? await registerSandbox(app, providerAppConfigs(deps.config)) : null;
  const module = { registry, vault, channels, profiles, sandbox };
  modules.set(app, module);
  return module;
}
