/**
 * The channel account state machine: every allowed transition in one table. Callers check a change
 * with assertTransition inside the transaction that writes it (setChannelState does both).
 *
 * - connecting / in_between_steps: an OAuth flow is under way or waits for the user to pick an account
 * - expiring: the token nears expiry and a refresh is due; refresh_needed: a refresh failed transiently
 * - reconnect_required: the platform refused the token or the refresh; only a new login fixes it
 * - disabled: switched off by the user; deleted: disconnected (tokens revoked and removed)
 */
import { AppError } from '../../platform/errors.js';

export const CHANNEL_ACCOUNT_STATES = [
  'not_connected',
  'connecting',
  'in_between_steps',
  'connected',
  'expiring',
  'refresh_needed',
  'reconnect_required',
  'disabled',
  'deleted',
] as const;
export type ChannelAccountState = (typeof CHANNEL_ACCOUNT_STATES)[number];

export const CHANNEL_TRANSITIONS: Readonly<Record<ChannelAccountState, readonly ChannelAccountState[]>> = {
  not_connected: ['connecting', 'in_between_steps', 'connected', 'disabled', 'deleted'],
  connecting: ['in_between_steps', 'connected', 'not_connected', 'reconnect_required', 'deleted'],
  in_between_steps: ['connected', 'not_connected', 'deleted'],
  connected: ['expiring', 'refresh_needed', 'reconnect_required', 'connecting', 'in_between_steps', 'disabled', 'deleted'],
  expiring: ['connected', 'refresh_needed', 'reconnect_required', 'disabled', 'deleted'],
  refresh_needed: ['connected', 'expiring', 'reconnect_required', 'disabled', 'deleted'],
  reconnect_required: ['connecting', 'in_between_steps', 'connected', 'disabled', 'deleted'],
  disabled: ['connected', 'not_connected', 'reconnect_required', 'deleted'],
  // a disconnected channel comes back only through a new connection (OAuth or upsert with tokens)
  deleted: ['connecting', 'in_between_steps', 'connected'],
};

/** States a channel may be created in (a new channel is never created deleted). */
export const INITIAL_STATES: readonly ChannelAccountState[] = CHANNEL_ACCOUNT_STATES.filter((s) => s !== 'deleted');

/** States in which the channel holds a usable token (publishing and tools may call the platform). */
export const USABLE_STATES: readonly ChannelAccountState[] = ['connected', 'expiring', 'refresh_needed'];

export function canTransition(from: ChannelAccountState, to: ChannelAccountState): boolean {
  return from === to || CHANNEL_TRANSITIONS[from].includes(to);
}

export function assertTransition(from: ChannelAccountState, to: ChannelAccountState): void {
  if (!canTransition(from, to)) {
    throw new AppError('channel_account_invalid_transition', {
      message: `A channel account cannot move from ${from} to ${to}.`,
      details: { from, to, allowed: [...CHANNEL_TRANSITIONS[from]] },
    });
  }
}
