/**
 * Disconnect counters of batch targets (disconnectSummary.cancelled/needsReconnect/needsAttention
 * BatchTargetCount). The publishing hook moves the channel's publish targets in the same transaction;
 * this hook only counts those that belong to a batch. It may run before or after the publishing hook,
 * so it counts both a target still in its old state and one the publishing hook just moved.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.js';

export async function batchDisconnectHook(tx: Executor, organizationId: string, channelAccountId: string, now: Date) {
  const rows = await tx
    .selectFrom('publish_batch_targets as b')
    .innerJoin('publish_targets as t', (j) => j.onRef('t.id', '=', 'b.post_target_id').onRef('t.organization_id', '=', 'b.organization_id'))
    .select(['t.state', 't.state_reason', 't.updated_at'])
    .where('b.organization_id', '=', organizationId)
    .where('b.channel_account_id', '=', channelAccountId)
    .where(
      sql<boolean>`(t.state in ('draft', 'scheduled', 'queued', 'publishing', 'processing')
        or (t.state in ('cancelled', 'needs_reconnect', 'needs_attention') and t.updated_at = ${now} and t.state_reason like 'channel disconnected%'))`,
    )
    .execute();
  const counts = { cancelledBatchTargetCount: 0, needsReconnectBatchTargetCount: 0, needsAttentionBatchTargetCount: 0 };
  for (const r of rows) {
    if (r.state === 'draft' || r.state === 'scheduled' || r.state === 'cancelled') counts.cancelledBatchTargetCount += 1;
    else if (r.state === 'queued' || r.state === 'needs_reconnect') counts.needsReconnectBatchTargetCount += 1;
    else counts.needsAttentionBatchTargetCount += 1;
  }
  return counts;
}
