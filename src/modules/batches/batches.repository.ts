/** Kysely queries of publish batches and assets; every read and write is confined to one organization. */

import type { Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { AssetsTable, PublishBatchesTable, PublishBatchPreviewsTable, PublishBatchTargetsTable } from './batches.tables.js';
import { packSchedule, unpackSchedule } from './stored-schedule.js';

export type BatchRow = Selectable<PublishBatchesTable>;
export type AssetRow = Selectable<AssetsTable>;
/** A stored preview as read: its schedule unpacked, whichever way it was stored. */
export type PreviewRow = Omit<Selectable<PublishBatchPreviewsTable>, 'schedule' | 'schedule_packed'> & {
  schedule: Record<string, unknown>;
};

/** A batch target as the batch reads select it (without its organization and creation time). */
export type BatchTargetRow = Omit<Selectable<PublishBatchTargetsTable>, 'organization_id' | 'created_at'>;

const CHUNK = 500;
export async function chunked<T>(rows: T[], fn: (part: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) await fn(rows.slice(i, i + CHUNK));
}

export const batchesRepository = {
  /** Stores a preview (the same id again refreshes its expiry: the same request and schedule). */
  async savePreview(
    db: Executor,
    row: {
      id: string;
      organizationId: string;
      brandId: string;
      requestHash: string;
      from: Date;
      schedule: unknown;
      expiresAt: Date;
      at: Date;
    },
  ): Promise<void> {
    await db
      .insertInto('publish_batch_previews')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        brand_id: row.brandId,
        request_hash: row.requestHash,
        from_at: row.from,
        schedule: null,
        schedule_packed: packSchedule(row.schedule),
        expires_at: row.expiresAt,
        created_at: row.at,
      })
      .onConflict((oc) => oc.column('id').doUpdateSet({ expires_at: row.expiresAt }))
      .execute();
  },

  async getPreview(db: Executor, organizationId: string, id: string): Promise<PreviewRow | null> {
    const row = await db
      .selectFrom('publish_batch_previews')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const { schedule, schedule_packed, ...rest } = row;
    return { ...rest, schedule: schedule_packed ? unpackSchedule(schedule_packed) : (schedule ?? {}) };
  },

  /** The maintenance prune: previews past their expiry. */
  async deleteExpiredPreviews(db: Executor, now: Date): Promise<number> {
    return Number((await db.deleteFrom('publish_batch_previews').where('expires_at', '<=', now).executeTakeFirst()).numDeletedRows);
  },

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
    return keysetPage(query, 'id', q.beforeId, q.limit, 'desc').execute();
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

  async targetsOf(db: Executor, organizationId: string, batchIds: string[]): Promise<BatchTargetRow[]> {
    if (batchIds.length === 0) return [];
    return db
      .selectFrom('publish_batch_targets')
      .select([
        'id',
        'batch_id',
        'item_id',
        'position',
        'channel_account_id',
        'platform',
        'slot_id',
        'scheduled_at',
        'jitter_seconds',
        'post_target_id',
      ])
      .where('organization_id', '=', organizationId)
      .where('batch_id', 'in', batchIds)
      .orderBy('item_id')
      .orderBy('position')
      .execute();
  },

  /** The publish target ids of a channel's batch targets. */
  async postTargetIdsOfChannel(db: Executor, organizationId: string, channelAccountId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('publish_batch_targets')
      .select('post_target_id')
      .where('organization_id', '=', organizationId)
      .where('channel_account_id', '=', channelAccountId)
      .where('post_target_id', 'is not', null)
      .execute();
    return rows.map((r) => r.post_target_id!);
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
    return keysetPage(query, 'id', q.beforeId, q.limit, 'desc').execute();
  },

  /** The publish target ids made for the assets' batch items. */
  async assetPostTargets(db: Executor, organizationId: string, assetIds: string[]) {
    if (assetIds.length === 0) return [];
    const rows = await db
      .selectFrom('publish_batch_items as i')
      .innerJoin('publish_batch_targets as b', 'b.item_id', 'i.id')
      .select(['i.asset_id', 'i.batch_id', 'b.post_target_id'])
      .where('i.organization_id', '=', organizationId)
      .where('b.organization_id', '=', organizationId)
      .where('i.asset_id', 'in', assetIds)
      .where('b.post_target_id', 'is not', null)
      .execute();
    return rows.map((r) => ({ assetId: r.asset_id, batchId: r.batch_id, postTargetId: r.post_target_id! }));
  },
};
