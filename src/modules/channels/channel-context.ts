/**
 * Entry points for the publishing engine (and the tools route): a connected channel's provider and
 * call context with its decrypted token, and state changes checked against the transition table in
 * the caller's transaction.
 */

import { AppError } from '../../platform/errors.js';
import type { ProviderCallContext, SocialProvider } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { Db, Executor } from '../database.js';
import { type ChannelEventSink, recordChannelStateEvent } from './channel-events.js';
import { assertTransition, type ChannelAccountState, USABLE_STATES } from './channel-states.js';
import { type ChannelRow, channelsRepository } from './channels.repository.js';
import type { TokenVault } from './token-vault.js';

export interface ChannelContextDeps {
  db: Db;
  vault: TokenVault;
  registry: ProviderRegistry;
}

export interface ChannelContext {
  channel: ChannelRow;
  provider: SocialProvider;
  ctx: ProviderCallContext;
}

/**
 * The channel, its platform's adapter and a call context carrying the decrypted access token.
 * 404 channel_account_not_found for another organization's channel; 409 channel_account_not_connected
 * when the channel is not in a usable state or its token cannot be resolved.
 */
export async function resolveChannelContext(
  deps: ChannelContextDeps,
  organizationId: string,
  channelAccountId: string,
  signal?: AbortSignal,
): Promise<ChannelContext> {
  const channel = await channelsRepository.get(deps.db, organizationId, channelAccountId);
  if (!channel)
    throw new AppError('channel_account_not_found', {
      message: `No channel account ${channelAccountId} in the principal organization.`,
    });
  if (!USABLE_STATES.includes(channel.state)) {
    throw new AppError('channel_account_not_connected', {
      message: `Channel account ${channelAccountId} is ${channel.state}; connect it again before using it.`,
      details: { channelAccountId, state: channel.state },
    });
  }
  const accessToken = await deps.vault.resolve(deps.db, organizationId, channel.access_token_ref);
  if (!accessToken) {
    throw new AppError('channel_account_not_connected', {
      message: `Channel account ${channelAccountId} has no usable access token; connect it again.`,
      details: { channelAccountId, state: channel.state },
    });
  }
  return {
    channel,
    provider: deps.registry.get(channel.platform),
    ctx: {
      accessToken,
      externalAccountId: channel.external_account_id,
      channelSettings: channel.additional_settings ?? {},
      signal,
    },
  };
}

/**
 * Moves a channel to `state` inside the caller's transaction after locking its row and checking the
 * transition table (409 channel_account_invalid_transition). Answers the previous state. With `events`,
 * records the state's webhook event when the state really changed.
 */
export async function setChannelState(
  tx: Executor,
  organizationId: string,
  channelAccountId: string,
  state: ChannelAccountState,
  reason: string | null,
  now = new Date(),
  events?: ChannelEventSink,
): Promise<ChannelAccountState> {
  const row = await channelsRepository.lock(tx, organizationId, channelAccountId);
  if (!row)
    throw new AppError('channel_account_not_found', {
      message: `No channel account ${channelAccountId} in the principal organization.`,
    });
  assertTransition(row.state, state);
  if (row.state !== state || reason !== row.state_reason) {
    await channelsRepository.update(tx, organizationId, channelAccountId, {
      state,
      state_reason: reason,
      updated_at: now,
    });
  }
  await recordChannelStateEvent(events, tx, organizationId, channelAccountId, row.state);
  return row.state;
}
