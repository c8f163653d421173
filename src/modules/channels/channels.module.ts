/**
 * The channels area: channel accounts, connecting and disconnecting them, provider capabilities and
 * tools, and the token lifecycle job. The root hands it the one provider registry and token vault and
 * the disconnect subscribers other areas react through; other areas read channels through
 * ChannelsReadPort (publishing profiles are their own module, profiles.module.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import { ChannelCallbackService } from './channel-callback.service.js';
import { ChannelChoiceService } from './channel-choice.service.js';
import { registerChannelConnectRoutes } from './channel-connect.routes.js';
import { ChannelConnectService } from './channel-connect.service.js';
import type { ChannelEventSink } from './channel-events.js';
import { type ChannelsReadPort as ChannelsReadAndWrite, channelsReadPort } from './channels.read.js';

export type { DisconnectHook } from './disconnect-hooks.js';
/** the token vault: the root builds the one instance (main/shared.ts) and hands it to channels and publishing */
export { TokenVault } from './token-vault.js';

import { registerChannelRoutes } from './channels.routes.js';
import { ChannelAccount } from './channels.schemas.js';
import { ChannelsService } from './channels.service.js';
import type { DisconnectSubscribers } from './disconnect-hooks.js';
import { tokenLifecycleJob } from './token-lifecycle.jobs.js';
import type { TokenVault } from './token-vault.js';

export type ChannelsPorts = Pick<AppDeps, 'config' | 'database' | 'encryptor' | 'clock' | 'events'> & {
  registry: ProviderRegistry;
  vault: TokenVault;
  disconnects: DisconnectSubscribers;
  /** brand names of the answers and events, and the brand existence checks */
  brands: Pick<BrandsReadPort, 'brand' | 'names'>;
};

export type {
  ChannelCallAnswer,
  ChannelFactsForPublishing,
  ChannelRef,
} from './channels.read.js';

/** What other areas may read of channels (facts, call contexts, the channels of an account or platform). */
export type ChannelsReadPort = Omit<ChannelsReadAndWrite, 'markTokenProblem'>;
/** A write: a channel moved to a token-problem state after the platform refused its token, in the caller's transaction. */
export type ChannelsTokenProblemsPort = Pick<ChannelsReadAndWrite, 'markTokenProblem'>;

export interface ChannelsModule extends AreaModule<ChannelsReadPort> {
  channels: ChannelsService;
  /** handed by the root to the areas that see a platform refuse a token (publishing, analytics, provider webhooks) */
  tokenProblems: ChannelsTokenProblemsPort;
}

export function createChannelsModule(ports: ChannelsPorts): ChannelsModule {
  const db = ports.database.db;
  const { registry, vault, encryptor, clock, brands } = ports;
  const events: ChannelEventSink = { outbox: ports.events, brands };
  const channels = new ChannelsService({ db, vault, registry, clock, events, brands, disconnects: ports.disconnects });
  const connect = new ChannelConnectService({ db, config: ports.config, registry, encryptor, clock, brands });
  const callback = new ChannelCallbackService({ db, registry, vault, encryptor, clock, events });
  const choice = new ChannelChoiceService({ db, registry, vault, encryptor, clock, events });
  const read = channelsReadPort({ registry, vault, events });
  return {
    channels,
    read,
    tokenProblems: read,
    jobs: [tokenLifecycleJob({ db, config: ports.config, vault, registry, clock, events })],
    routes(app: FastifyInstance) {
      if (!app.getSchema('ChannelAccount')) app.addSchema(ChannelAccount);
      registerChannelRoutes(app, channels);
      registerChannelConnectRoutes(app, { connect, callback, choice, channels });
    },
  };
}
