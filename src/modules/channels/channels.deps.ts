/** What the channels service works with (its own file: the service and the disconnect flow both take it). */
import type { Clock } from '../../platform/clock.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Db } from '../database.js';
import type { ChannelEventSink } from './channel-events.js';
import type { DisconnectSubscribers } from './disconnect-hooks.js';
import type { TokenVault } from './token-vault.js';

export interface ChannelsDeps {
  db: Db;
  vault: TokenVault;
  registry: ProviderRegistry;
  clock: Clock;
  events?: ChannelEventSink;
  /** brand names of the answers and the brand existence check (the brands read port) */
  brands: Pick<BrandsReadPort, 'brand' | 'names'>;
  /** the other areas' reactions to a disconnect (subscribed by the composition root) */
  disconnects: DisconnectSubscribers;
}
