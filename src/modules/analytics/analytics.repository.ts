/** Analytics snapshot queries; every one is scoped by organization id. Snapshots are only ever inserted. */

import { type Selectable, sql } from 'kysely';
import { type TimeKey, timeKeysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { AnalyticsSnapshotsTable, SnapshotSource } from './analytics.tables.js';

export type SnapshotRow = Selectable<AnalyticsSnapshotsTable>;

export interface SnapshotFilters {
  brandId?: string;
  channelAccountId?: string;
  platform?: string;
  postTargetId?: string;
  providerPostId?: string;
  from?: Date;
  to?: Date;
}

export const analyticsRepository = {
  /** newest capture first (then id); `after` is the key of the previous page's last row */
  async list(db: Executor, organizationId: string, f: SnapshotFilters & { after: TimeKey | null; limit: number }): Promise<SnapshotRow[]> {
    let q = db.selectFrom('analytics_snapshots').selectAll().where('organization_id', '=', organizationId);
    if (f.brandId) q = q.where('brand_id', '=', f.brandId);
    if (f.channelAccountId) q = q.where('channel_account_id', '=', f.channelAccountId);
    if (f.platform) q = q.where('platform', '=', f.platform);
    if (f.postTargetId) q = q.where('post_target_id', '=', f.postTargetId);
    if (f.providerPostId) q = q.where('provider_post_id', '=', f.providerPostId);
    if (f.from) q = q.where('captured_at', '>=', f.from);
    if (f.to) q = q.where('captured_at', '<', f.to);
    return timeKeysetPage(q, sql.ref<Date>('captured_at'), 'id', f.after, f.limit).execute();
  },

  async insert(
    db: Executor,
    row: Omit<SnapshotRow, 'metrics' | 'source'> & { metrics: Record<string, number | null>; source: SnapshotSource },
  ): Promise<void> {
    await db
      .insertInto('analytics_snapshots')
      .values({ ...row, metrics: JSON.stringify(row.metrics), source: JSON.stringify(row.source) })
      .execute();
  },

  /** the newest snapshot per target among `targetIds` (the job's "already synced for this window" check) */
  async latestCaptureByTarget(db: Executor, organizationId: string, targetIds: string[]): Promise<Map<string, Date>> {
    const out = new Map<string, Date>();
    if (targetIds.length === 0) return out;
    const rows = await db
      .selectFrom('analytics_snapshots')
      .select(['post_target_id'])
      .select((eb) => eb.fn.max('captured_at').as('latest'))
      .where('organization_id', '=', organizationId)
      .where('post_target_id', 'in', targetIds)
      .groupBy('post_target_id')
      .execute();
    for (const r of rows) if (r.post_target_id && r.latest) out.set(r.post_target_id, new Date(r.latest as unknown as string));
    return out;
  },
};
