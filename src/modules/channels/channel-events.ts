/**
 * Webhook events of channel accounts, recorded in the transaction of the change (the event outbox):
 * channel_account.connected / refresh_needed / reconnect_required / disconnected, each only when the
 * channel really moved into that state; data is the channel account as the API answers it.
 */

import type { EventType } from '../../platform/events/event-types.js';
import type { EventOutbox } from '../../platform/events/outbox.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Executor } from '../database.js';
import type { ChannelAccountState } from './channel-states.js';
import { brandOf, toChannelAccount } from './channels.mapper.js';
import { channelsRepository } from './channels.repository.js';

const STATE_EVENTS: Partial<Record<ChannelAccountState, EventType>> = {
  connected: 'channel_account.connected',
  refresh_needed: 'channel_account.refresh_needed',
  reconnect_required: 'channel_account.reconnect_required',
  deleted: 'channel_account.disconnected',
};

/** Where channel events go: the outbox, and the brands read port the channel's brand name is read from. */
export interface ChannelEventSink {
  outbox: EventOutbox;
  brands: Pick<BrandsReadPort, 'names'>;
}

/** Records the event of the channel's current state when it differs from `from` (null: a new channel). */
export async function recordChannelStateEvent(
  events: ChannelEventSink | undefined,
  tx: Executor,
  organizationId: string,
  channelAccountId: string,
  from: ChannelAccountState | null,
): Promise<void> {
  if (!events) return;
  const row = await channelsRepository.get(tx, organizationId, channelAccountId);
  if (!row || row.state === from) return;
  const type = STATE_EVENTS[row.state];
  if (type) await events.outbox.record(tx, { organizationId, type, data: toChannelAccount(row, await brandOf(events.brands, tx, row)) });
}
