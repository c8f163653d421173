/**
 * Disconnect counters of batch targets (disconnectSummary.cancelled/needsReconnect/needsAttention
 * BatchTargetCount). The publishing hook moves the channel's publish targets in the same transaction;
 * this hook only counts those that belong to a batch, reading their state through publishing's batch
 * port. It may run before or after the publishing hook, so it counts both a target still in its old
 * state and one the publishing hook just moved.
 */
import type { Executor } from '../database.js';
import type { PublishingBatchPort } from '../publishing/publishing.module.js';
import { batchesRepository } from './batches.repository.js';

const MOVED = new Set(['cancelled', 'needs_reconnect', 'needs_attention']);

export function batchDisconnectHook(publishing: PublishingBatchPort) {
  return async (tx: Executor, organizationId: string, channelAccountId: string, now: Date) => {
    const ids = await batchesRepository.postTargetIdsOfChannel(tx, organizationId, channelAccountId);
    const targets = (await publishing.targets(tx, organizationId, ids)).filter(
      (t) =>
        t.open ||
        (MOVED.has(t.state) && new Date(t.updatedAt).getTime() === now.getTime() && !!t.stateReason?.startsWith('channel disconnected')),
    );
    const counts = { cancelledBatchTargetCount: 0, needsReconnectBatchTargetCount: 0, needsAttentionBatchTargetCount: 0 };
    for (const r of targets) {
      if (r.state === 'draft' || r.state === 'scheduled' || r.state === 'cancelled') counts.cancelledBatchTargetCount += 1;
      else if (r.state === 'queued' || r.state === 'needs_reconnect') counts.needsReconnectBatchTargetCount += 1;
      else counts.needsAttentionBatchTargetCount += 1;
    }
    return counts;
  };
}
