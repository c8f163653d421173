/**
 * What other areas do when a channel account is disconnected. The composition root subscribes the
 * profiles, publishing and batches areas' hooks, which disable the channel's profile entries and cancel
 * or flag its post and batch targets in the disconnect's own transaction and answer their counts; the
 * counts are summed into the ChannelAccount's disconnectSummary.
 */

import type { Subscribers } from '../../platform/events/subscribers.js';
import type { Executor } from '../database.js';

export interface DisconnectCounts {
  cancelledPostTargetCount: number;
  needsReconnectPostTargetCount: number;
  needsAttentionPostTargetCount: number;
  cancelledBatchTargetCount: number;
  needsReconnectBatchTargetCount: number;
  needsAttentionBatchTargetCount: number;
  disabledPublishingProfileChannelCount: number;
}

export type DisconnectHook = (
  tx: Executor,
  organizationId: string,
  channelAccountId: string,
  now: Date,
) => Promise<Partial<DisconnectCounts>>;

export type DisconnectSubscribers = Subscribers<DisconnectHook>;

export function emptyDisconnectCounts(): DisconnectCounts {
  return {
    cancelledPostTargetCount: 0,
    needsReconnectPostTargetCount: 0,
    needsAttentionPostTargetCount: 0,
    cancelledBatchTargetCount: 0,
    needsReconnectBatchTargetCount: 0,
    needsAttentionBatchTargetCount: 0,
    disabledPublishingProfileChannelCount: 0,
  };
}

/** Runs every hook in the given transaction and sums their counts. */
export async function runDisconnectHooks(
  hooks: DisconnectSubscribers,
  tx: Executor,
  organizationId: string,
  channelAccountId: string,
  now: Date,
): Promise<DisconnectCounts> {
  const total = emptyDisconnectCounts();
  for (const hook of hooks.all()) {
    const counts = await hook(tx, organizationId, channelAccountId, now);
    for (const key of Object.keys(total) as Array<keyof DisconnectCounts>) {
      const v = counts[key];
      if (typeof v === 'number' && Number.isFinite(v) && v > 0) total[key] += Math.floor(v);
    }
  }
  return total;
}
