/**
 * The read side of publish batches: a batch's status derived from its publish targets' states (read
 * through publishing's batch port), the batch listing (filtered by that derived status) and the assets
 * with the publish targets that used them.
 */

import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import type { BatchPublishTarget, PublishingBatchPort } from '../publishing/publishing.module.js';
import { deriveBatchStatus, targetCounts } from './batch-status.js';
import { type AssetRow, type BatchRow, batchesRepository } from './batches.repository.js';
import type { AssetListQueryT, AssetT, BatchListQueryT, PublishBatchStatusT } from './batches.schemas.js';

export class BatchReads {
  constructor(
    private readonly deps: Pick<AppDeps, 'database'>,
    /** publishing's batch port (the completion scan reads the targets' states through it too) */
    readonly publishing: PublishingBatchPort,
  ) {}

  private get db() {
    return this.deps.database.db;
  }

  async get(organizationId: string, id: string): Promise<PublishBatchStatusT> {
    const row = await batchesRepository.getBatch(this.db, organizationId, id);
    if (!row) throw new AppError('publish_batch_not_found', { message: `No publish batch ${id} in the principal organization.` });
    return this.statusOf(this.db, organizationId, row, true);
  }

  async list(organizationId: string, q: BatchListQueryT) {
    const limit = q.limit ?? 50;
    const filters = { brandId: q.brandId, status: q.status };
    const beforeId = decodeCursor(q.cursor, filters, 'invalid_public_publish_batch_query');
    if (!q.status) {
      const rows = await batchesRepository.listBatches(this.db, organizationId, { brandId: q.brandId, beforeId, limit });
      const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
      return { data: await this.statuses(organizationId, data), nextCursor };
    }
    // status is derived: filter page by page until the page is full
    const out: PublishBatchStatusT[] = [];
    let cursor = beforeId;
    for (;;) {
      const rows = await batchesRepository.listBatches(this.db, organizationId, { brandId: q.brandId, beforeId: cursor, limit });
      const statuses = await this.statuses(organizationId, rows.slice(0, limit));
      for (const s of statuses) if (s.status === q.status) out.push(s);
      if (out.length > limit || rows.length <= limit) break;
      cursor = rows[limit - 1]!.id;
    }
    const { data, nextCursor } = page(out, limit, (r) => r.publishBatchId, filters);
    return { data, nextCursor };
  }

  private async statuses(organizationId: string, rows: BatchRow[]): Promise<PublishBatchStatusT[]> {
    const out: PublishBatchStatusT[] = [];
    for (const r of rows) out.push(await this.statusOf(this.db, organizationId, r, true));
    return out;
  }

  /** The batches' targets with their publish targets' state (the publish target's time when it has one). */
  private async targetsOf(db: Executor, organizationId: string, batchIds: string[]) {
    const rows = await batchesRepository.targetsOf(db, organizationId, batchIds);
    const posts = await this.publishTargets(
      db,
      organizationId,
      rows.flatMap((r) => (r.post_target_id ? [r.post_target_id] : [])),
    );
    return rows.map((r) => {
      const t = r.post_target_id ? posts.get(r.post_target_id) : undefined;
      return {
        ...r,
        // a publish target rescheduled through its job shows its current time
        scheduled_at: t?.scheduledAt ?? r.scheduled_at,
        state: t?.state ?? null,
        provider_post_id: t?.providerPostId ?? null,
        first_comment_state: t?.firstCommentState ?? null,
      };
    });
  }

  private async publishTargets(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, BatchPublishTarget>> {
    return new Map((await this.publishing.targets(db, organizationId, ids)).map((t) => [t.id, t]));
  }

  /** The batch's status on the given executor (the commit reads it inside its transaction for its event). */
  async statusOf(db: Executor, organizationId: string, row: BatchRow, withPreview: boolean): Promise<PublishBatchStatusT> {
    const items = await batchesRepository.itemsOf(db, organizationId, [row.id]);
    const targets = await this.targetsOf(db, organizationId, [row.id]);
    const byItem = new Map<string, typeof targets>();
    for (const t of targets) byItem.set(t.item_id, [...(byItem.get(t.item_id) ?? []), t]);
    const states = targets.map((t) => (t.post_target_id ? (t.state ?? 'cancelled') : null));
    return {
      publishBatchId: row.id,
      organizationId: row.organization_id,
      brandId: row.brand_id,
      status: deriveBatchStatus(states),
      itemCount: row.item_count,
      targetCount: row.target_count,
      items: items.map((i) => ({
        publishBatchItemId: i.id,
        position: i.position,
        clientAssetId: i.client_asset_id,
        assetId: i.asset_id,
        productId: i.product_id,
        publishJobId: i.publish_job_id,
        targets: (byItem.get(i.id) ?? [])
          .sort((a, b) => a.position - b.position)
          .map((t) => ({
            publishBatchTargetId: t.id,
            platform: t.platform,
            channelAccountId: t.channel_account_id,
            slotId: t.slot_id,
            scheduledAt: t.scheduled_at ? new Date(t.scheduled_at).toISOString() : null,
            jitterSeconds: t.jitter_seconds,
            postTargetId: t.post_target_id,
            state: t.post_target_id ? (t.state ?? 'cancelled') : 'unscheduled',
            providerPostId: t.provider_post_id,
            firstCommentState: t.first_comment_state,
          })),
      })),
      source: row.source,
      idempotencyKey: row.idempotency_key,
      freezeHorizonMinutes: row.freeze_horizon_minutes,
      schedulePolicy: row.schedule_policy,
      ...(withPreview ? { preview: row.preview } : {}),
      ...targetCounts(states),
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  // ---- assets
  async getAsset(organizationId: string, id: string): Promise<AssetT> {
    const row = await batchesRepository.getAsset(this.db, organizationId, id);
    if (!row) throw new AppError('asset_not_found', { message: `No asset ${id} in the principal organization.` });
    return (await this.assets(organizationId, [row]))[0]!;
  }

  async listAssets(organizationId: string, q: AssetListQueryT) {
    const limit = q.limit ?? 50;
    const filters = { brandId: q.brandId, productId: q.productId, clientAssetId: q.clientAssetId };
    const beforeId = decodeCursor(q.cursor, filters, 'invalid_public_asset_query');
    const rows = await batchesRepository.listAssets(this.db, organizationId, { ...filters, beforeId, limit });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    return { data: await this.assets(organizationId, data), nextCursor };
  }

  private async assets(organizationId: string, rows: AssetRow[]): Promise<AssetT[]> {
    const links = await batchesRepository.assetPostTargets(
      this.db,
      organizationId,
      rows.map((r) => r.id),
    );
    const byPost = new Map<string, typeof links>();
    for (const l of links) byPost.set(l.postTargetId, [...(byPost.get(l.postTargetId) ?? []), l]);
    // ordered by publish target id, as the targets answer them
    const targets = (await this.publishing.targets(this.db, organizationId, [...byPost.keys()])).flatMap((t) =>
      (byPost.get(t.id) ?? []).map((l) => ({
        asset_id: l.assetId,
        batch_id: l.batchId,
        id: t.id,
        job_id: t.jobId,
        platform: t.platform,
        channel_account_id: t.channelAccountId,
        scheduled_at: t.scheduledAt,
        state: t.state,
      })),
    );
    return rows.map((r) => ({
      assetId: r.id,
      organizationId: r.organization_id,
      brandId: r.brand_id,
      clientAssetId: r.client_asset_id,
      productId: r.product_id,
      title: r.title,
      productUrl: r.product_url,
      text: r.text,
      mediaLibraryItemIds: r.media_library_item_ids,
      media: r.media,
      lastPublishBatchId: r.last_batch_id,
      targets: targets
        .filter((t) => t.asset_id === r.id)
        .map((t) => ({
          postTargetId: t.id,
          publishJobId: t.job_id,
          publishBatchId: t.batch_id,
          platform: t.platform,
          channelAccountId: t.channel_account_id,
          scheduledAt: t.scheduled_at ? new Date(t.scheduled_at).toISOString() : null,
          state: t.state,
        })),
      createdAt: new Date(r.created_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
    }));
  }
}
