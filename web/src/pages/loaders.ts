/** The lists several pages load: the organization's brands (with products) and channel accounts. */
import { type Brand, type ChannelAccount, client, ok } from '../client';

export const loadBrands = () =>
  ok(client.GET('/v1/brands', { params: { query: { includeProducts: true } } })).then((r) => r.data as Brand[]);
export const loadChannels = () => ok(client.GET('/v1/channel-accounts', {})).then((r) => r.data as ChannelAccount[]);
