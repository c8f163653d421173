/** Kysely queries of publish batches and assets; every read and write is confined to one organization. */
import { type Selectable, sql } from 'kysely';
import type { Executor } from '../database.js';
import type { AssetsTable, PublishBatchesTable } from './batches.tables.js';

export type BatchRow = Selectable<PublishBatchesTable>;
export type AssetRow = Selectable<AssetsTable>;

export interface BatchTargetJoined {
  id: string;
  batch_id: string;
  item_id: string;
  position: number;
  channel_account_id: string;
  platform: string;
  slot_id: string | null;
  scheduled_at: Date | null;
  jitter_seconds: number | null;
  post_target_id: string | null;
  state: string | null;
  provider_post_id: string | null;
  first_comment_state: string | null;
}

const CHUNK = 500;
export async function chunked<T>(rows: T[], fn: (part: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await fn(rows.slice(i, i + CHUNK));
}

export const batchesRepository = {
  async getBatch(db: Executor, organizationId: string, id: string): Promise<BatchRow | null> {
    return (
      (await db
        .selectFrom('publish_batches')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst()) ?? null
    );
  },

  async findByIdempotencyKey(db: Executor, organizationId: string, key: string): Promise<BatchRow | null> {
    return (
      (await db
        .selectFrom('publish_batches')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst()) ?? null
    );
  },

  /** Newest first (ids are ULIDs), fetched with limit + 1. */
  async listBatches(
    db: Executor,
    organizationId: string,
    q: { brandId?: string; beforeId: string | null; limit: number },
  ): Promise<BatchRow[]> {
    let query = db.selectFrom('publish_batches').selectAll().where('organization_id', '=', organizationId);
    if (q.brandId) query = query.where('brand_id', '=', q.brandId);
    if (q.beforeId) query = query.where('id', '<', q.beforeId);
    return query
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute();
  },

  async itemsOf(db: Executor, organizationId: string, batchIds: string[]) {
    if (batchIds.length === 0) return [];
    return db
      .selectFrom('publish_batch_items')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('batch_id', 'in', batchIds)
      .orderBy('batch_id')
      .orderBy('position')
      .execute();
  },

  async targetsOf(db: Executor, organizationId: string, batchIds: string[]): Promise<BatchTargetJoined[]> {
    if (batchIds.length === 0) return [];
    return db
      .selectFrom('publish_batch_targets as b')
      .leftJoin('publish_targets as t', (j) =>
        j.onRef('t.id', '=', 'b.post_target_id').onRef('t.organization_id', '=', 'b.organization_id'),
      )
      .select([
        'b.id',
        'b.batch_id',
        'b.item_id',
        'b.position',
        'b.channel_account_id',
        'b.platform',
        'b.slot_id',
        // a publish target rescheduled through its job shows its current time
        sql<Date | null>`coalesce(t.scheduled_at, b.scheduled_at)`.as('scheduled_at'),
        'b.jitter_seconds',
        'b.post_target_id',
        't.state',
        't.provider_post_id',
        't.first_comment_state',
      ])
      .where('b.organization_id', '=', organizationId)
      .where('b.batch_id', 'in', batchIds)
      .orderBy('b.item_id')
      .orderBy('b.position')
      .execute();
  },

  async getAsset(db: Executor, organizationId: string, id: string): Promise<AssetRow | null> {
    return (
      (await db.selectFrom('assets').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst()) ??
      null
    );
  },

  async listAssets(
    db: Executor,
    organizationId: string,
    q: { brandId?: string; productId?: string; clientAssetId?: string; beforeId: string | null; limit: number },
  ): Promise<AssetRow[]> {
    let query = db.selectFrom('assets').selectAll().where('organization_id', '=', organizationId);
    if (q.brandId) query = query.where('brand_id', '=', q.brandId);
    if (q.productId) query = query.where('product_id', '=', q.productId);
    if (q.clientAssetId) query = query.where('client_asset_id', '=', q.clientAssetId);
    if (q.beforeId) query = query.where('id', '<', q.beforeId);
    return query
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute();
  },

  /** The publish targets made for the assets' batch items. */
  async assetTargets(db: Executor, organizationId: string, assetIds: string[]) {
    if (assetIds.length === 0) return [];
    return db
      .selectFrom('publish_batch_items as i')
      .innerJoin('publish_batch_targets as b', 'b.item_id', 'i.id')
      .innerJoin('publish_targets as t', (j) =>
        j.onRef('t.id', '=', 'b.post_target_id').onRef('t.organization_id', '=', 'b.organization_id'),
      )
      .select(['i.asset_id', 'i.batch_id', 't.id', 't.job_id', 't.platform', 't.channel_account_id', 't.scheduled_at', 't.state'])
      .where('i.organization_id', '=', organizationId)
      .where('i.asset_id', 'in', assetIds)
      .orderBy('t.id')
      .execute();
  },
};
