import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { AnalyticsSnapshotsTable } from './analytics.tables.js';

export type SnapshotRow = Selectable<AnalyticsSnapshotsTable>;

export interface SnapshotFilters {
  brandId?: string;
  channelAccountId?: string;
  postTargetId?: string;
  platform?: string;
  from?: string;
  to?: string;
}

export const analyticsRepository = {
  async insert(db: Executor, row: Insertable<AnalyticsSnapshotsTable>): Promise<void> {
    await db.insertInto('analytics_snapshots').values(row).execute();
  },

  /** Newest first by id (ULIDs sort by creation); afterId is the last id of the previous page. */
  async list(db: Executor, organizationId: string, f: SnapshotFilters, afterId: string | null, limit: number): Promise<SnapshotRow[]> {
    let q = db.selectFrom('analytics_snapshots').selectAll().where('organization_id', '=', organizationId);
    if (f.brandId) q = q.where('brand_id', '=', f.brandId);
    if (f.channelAccountId) q = q.where('channel_account_id', '=', f.channelAccountId);
    if (f.postTargetId) q = q.where('post_target_id', '=', f.postTargetId);
    if (f.platform) q = q.where('platform', '=', f.platform);
    if (f.from) q = q.where('captured_at', '>=', new Date(f.from));
    if (f.to) q = q.where('captured_at', '<', new Date(f.to));
    if (afterId) q = q.where('id', '<', afterId);
    return q
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  },

  async countForTarget(db: Executor, organizationId: string, postTargetId: string): Promise<number> {
    const r = await db
      .selectFrom('analytics_snapshots')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('organization_id', '=', organizationId)
      .where('post_target_id', '=', postTargetId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  },
};
