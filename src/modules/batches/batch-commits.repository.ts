/**
 * The statements of a batch's commit: the organization's commit lock, the batch row, its assets, items
 * and targets. All run in the commit's transaction (the caller's executor); every row is the
 * organization's.
 */
import { type Insertable, sql } from 'kysely';
import type { Executor } from '../database.js';
import { chunked } from './batches.repository.js';
import type { PublishBatchItemsTable, PublishBatchTargetsTable } from './batches.tables.js';

export type NewBatchItem = Omit<Insertable<PublishBatchItemsTable>, 'organization_id'>;
export type NewBatchTarget = Omit<Insertable<PublishBatchTargetsTable>, 'organization_id'>;

export interface NewBatch {
  id: string;
  brandId: string;
  source: string;
  idempotencyKey: string | null;
  requestHash: string;
  freezeHorizonMinutes: number;
  schedulePolicy: object;
  preview: object;
  itemCount: number;
  targetCount: number;
  at: Date;
}

export interface AssetUpsert {
  id: string;
  brandId: string;
  clientAssetId: string;
  productId: string;
  title: string | null;
  productUrl: string | null;
  text: string;
  media: unknown;
  mediaLibraryItemIds: string[];
  lastBatchId: string;
  at: Date;
}

export const batchCommitsRepository = {
  /** Serialises the organization's commits until the caller's transaction ends (two batches never plan around each other's gaps). */
  async lockOrganization(tx: Executor, organizationId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${`publish_batches:${organizationId}`}))`.execute(tx);
  },

  async insertBatch(tx: Executor, organizationId: string, b: NewBatch): Promise<void> {
    await tx
      .insertInto('publish_batches')
      .values({
        id: b.id,
        organization_id: organizationId,
        brand_id: b.brandId,
        source: b.source,
        idempotency_key: b.idempotencyKey,
        request_hash: b.requestHash,
        freeze_horizon_minutes: b.freezeHorizonMinutes,
        schedule_policy: JSON.stringify(b.schedulePolicy),
        preview: JSON.stringify(b.preview),
        item_count: b.itemCount,
        target_count: b.targetCount,
        created_at: b.at,
        updated_at: b.at,
      })
      .execute();
  },

  /**
   * One asset per clientAssetId of the brand: inserted, or the existing one updated from the item (it
   * keeps its id). Answers the asset id of each clientAssetId.
   */
  async upsertAssets(tx: Executor, organizationId: string, assets: AssetUpsert[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    await chunked(assets, async (part) => {
      const rows = await tx
        .insertInto('assets')
        .values(
          part.map((a) => ({
            id: a.id,
            organization_id: organizationId,
            brand_id: a.brandId,
            client_asset_id: a.clientAssetId,
            product_id: a.productId,
            title: a.title,
            product_url: a.productUrl,
            text: a.text,
            media: JSON.stringify(a.media),
            media_library_item_ids: JSON.stringify(a.mediaLibraryItemIds),
            last_batch_id: a.lastBatchId,
            created_at: a.at,
            updated_at: a.at,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['organization_id', 'brand_id', 'client_asset_id']).doUpdateSet((eb) => ({
            product_id: eb.ref('excluded.product_id'),
            title: eb.ref('excluded.title'),
            product_url: eb.ref('excluded.product_url'),
            text: eb.ref('excluded.text'),
            media: eb.ref('excluded.media'),
            media_library_item_ids: eb.ref('excluded.media_library_item_ids'),
            last_batch_id: eb.ref('excluded.last_batch_id'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .returning(['id', 'client_asset_id'])
        .execute();
      for (const r of rows) ids.set(r.client_asset_id, r.id);
    });
    return ids;
  },

  async insertItems(tx: Executor, organizationId: string, items: NewBatchItem[]): Promise<void> {
    await chunked(items, (part) =>
      tx
        .insertInto('publish_batch_items')
        .values(part.map((i) => ({ ...i, organization_id: organizationId })))
        .execute(),
    );
  },

  async insertTargets(tx: Executor, organizationId: string, targets: NewBatchTarget[]): Promise<void> {
    await chunked(targets, (part) =>
      tx
        .insertInto('publish_batch_targets')
        .values(part.map((t) => ({ ...t, organization_id: organizationId })))
        .execute(),
    );
  },
};
