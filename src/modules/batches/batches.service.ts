/**
 * Publish batches: preview, commit (dry run by default; otherwise the batch, its items, assets, publish
 * jobs and targets in one transaction through publishing's batch port), idempotent
 * replays, list and get with the status derived from the targets, and the assets.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Executor } from '../database.js';
import type { BatchJobToCreate, BatchPublishTarget, PublishingBatchPort } from '../publishing/publishing.module.js';
import { type BatchPlan, BatchPlanner, type PlannerPorts } from './batch-planner.js';
import { deriveBatchStatus, targetCounts } from './batch-status.js';
import { type AssetRow, type BatchRow, batchesRepository, chunked } from './batches.repository.js';
import {
  ASSET_ID_PREFIX,
  type AssetListQueryT,
  type AssetT,
  BATCH_ID_PREFIX,
  BATCH_ITEM_ID_PREFIX,
  BATCH_TARGET_ID_PREFIX,
  type BatchListQueryT,
  type PublishBatchCommitRequestT,
  type PublishBatchPreviewRequestT,
  type PublishBatchPreviewT,
  type PublishBatchStatusT,
} from './batches.schemas.js';

export type CommitAnswer =
  | { kind: 'dry_run'; body: { mode: 'dry_run'; preview: PublishBatchPreviewT } }
  | { kind: 'created'; batch: PublishBatchStatusT }
  | { kind: 'replayed'; batch: PublishBatchStatusT };

const PREVIEW_FIELDS = ['brandId', 'items', 'from', 'generatedAt', 'productLinkComment', 'policy', 'existingAssignments'] as const;

export class BatchesService {
  readonly planner: BatchPlanner;

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'>,
    readonly ports: PlannerPorts,
  ) {
    this.planner = new BatchPlanner(deps.clock, ports);
  }

  /** publishing's batch port (the completion scan and the disconnect counts read targets through it) */
  get publishing(): PublishingBatchPort {
    return this.ports.publishing;
  }

  private get db() {
    return this.deps.database.db;
  }

  async preview(organizationId: string, req: PublishBatchPreviewRequestT): Promise<PublishBatchPreviewT> {
    return (await this.planner.plan(this.db, organizationId, req)).preview;
  }

  async commit(organizationId: string, req: PublishBatchCommitRequestT): Promise<CommitAnswer> {
    const previewReq = Object.fromEntries(
      PREVIEW_FIELDS.filter((k) => req[k] !== undefined).map((k) => [k, req[k]]),
    ) as PublishBatchPreviewRequestT;
    if (req.dryRun !== false) {
      const plan = await this.planner.plan(this.db, organizationId, previewReq);
      return { kind: 'dry_run', body: { mode: 'dry_run', preview: plan.preview } };
    }
    if (!this.deps.config.gateOpen('SERVICE_PUBLISH_JOB_WRITE_ENABLED')) throw new AppError('publish_job_write_disabled');
    const { dryRun: _d, ...hashed } = req;
    const requestHash = createHash('sha256').update(JSON.stringify(hashed)).digest('hex');
    if (req.idempotencyKey) {
      const replay = await this.replay(organizationId, req.idempotencyKey, requestHash);
      if (replay) return replay;
    }
    await this.publishing.ensureQueues();
    const batchId = newId(BATCH_ID_PREFIX);
    try {
      await this.db.transaction().execute(async (tx) => {
        // serialise commits of one organization so two batches never plan around each other's gaps
        await sql`select pg_advisory_xact_lock(hashtext(${`publish_batches:${organizationId}`}))`.execute(tx);
        const plan = await this.planner.plan(tx, organizationId, previewReq);
        await this.persist(tx, organizationId, batchId, req, requestHash, plan);
      });
    } catch (err) {
      if (req.idempotencyKey && /duplicate key|unique/i.test(String((err as Error).message))) {
        const replay = await this.replay(organizationId, req.idempotencyKey, requestHash);
        if (replay) return replay;
      }
      throw err;
    }
    return { kind: 'created', batch: await this.get(organizationId, batchId) };
  }

  private async persist(
    tx: Executor,
    organizationId: string,
    batchId: string,
    req: PublishBatchCommitRequestT,
    requestHash: string,
    plan: BatchPlan,
  ) {
    const now = this.deps.clock.now();
    const { preview } = plan;
    await tx
      .insertInto('publish_batches')
      .values({
        id: batchId,
        organization_id: organizationId,
        brand_id: req.brandId,
        source: req.source ?? 'agent_batch',
        idempotency_key: req.idempotencyKey ?? null,
        request_hash: requestHash,
        freeze_horizon_minutes: req.freezeHorizonMinutes ?? 120,
        schedule_policy: JSON.stringify(plan.policy),
        preview: JSON.stringify({
          batchPreviewId: preview.batchPreviewId,
          from: preview.from,
          generatedAt: preview.generatedAt,
          assignmentCount: preview.assignmentCount,
          scheduledItemCount: preview.scheduledItemCount,
          unscheduledItemCount: preview.unscheduledItemCount,
          warnings: preview.warnings,
        }),
        item_count: plan.items.length,
        target_count: plan.items.reduce((n, i) => n + i.targets.length, 0),
        created_at: now,
        updated_at: now,
      })
      .execute();

    // one asset per clientAssetId of the brand (a later batch updates it)
    const assetIds = new Map<string, string>();
    await chunked(plan.items, async (part) => {
      const rows = await tx
        .insertInto('assets')
        .values(
          part.map((i) => ({
            id: newId(ASSET_ID_PREFIX),
            organization_id: organizationId,
            brand_id: req.brandId,
            client_asset_id: i.clientAssetId,
            product_id: i.productId,
            title: i.title,
            product_url: i.productUrl,
            text: i.text,
            media: JSON.stringify(i.rawMedia),
            media_library_item_ids: JSON.stringify(i.mediaLibraryItemIds),
            last_batch_id: batchId,
            created_at: now,
            updated_at: now,
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
      for (const r of rows) assetIds.set(r.client_asset_id, r.id);
    });

    const jobs: BatchJobToCreate[] = [];
    const itemRows: Array<Record<string, unknown>> = [];
    const targetRows: Array<Record<string, unknown>> = [];
    for (const [position, item] of plan.items.entries()) {
      const itemId = newId(BATCH_ITEM_ID_PREFIX);
      const scheduled = item.targets.filter((t) => t.scheduledAt !== null);
      let jobId: string | null = null;
      const postTargetIds = new Map<number, string>();
      if (scheduled.length > 0) {
        jobId = newId('job');
        const targets: BatchJobToCreate['targets'] = [];
        item.targets.forEach((t, j) => {
          if (t.scheduledAt === null) return;
          const id = newId('tgt');
          postTargetIds.set(j, id);
          targets.push({
            id,
            channelAccountId: t.channelAccountId,
            platform: t.platform,
            position: j,
            settings: t.settings,
            scheduledAt: new Date(t.scheduledAt),
            firstComment: t.firstComment,
          });
        });
        jobs.push({ id: jobId, productId: item.productId, title: item.title, text: item.text, media: item.media, targets });
      }
      itemRows.push({
        id: itemId,
        organization_id: organizationId,
        batch_id: batchId,
        position,
        client_asset_id: item.clientAssetId,
        asset_id: assetIds.get(item.clientAssetId)!,
        product_id: item.productId,
        publish_job_id: jobId,
        created_at: now,
      });
      for (const [j, t] of item.targets.entries())
        targetRows.push({
          id: newId(BATCH_TARGET_ID_PREFIX),
          organization_id: organizationId,
          batch_id: batchId,
          item_id: itemId,
          position: j,
          channel_account_id: t.channelAccountId,
          platform: t.platform,
          slot_id: t.slotId,
          scheduled_at: t.scheduledAt ? new Date(t.scheduledAt) : null,
          jitter_seconds: t.jitterSeconds,
          post_target_id: postTargetIds.get(j) ?? null,
          created_at: now,
        });
    }
    // the publishing module writes the jobs, targets and worker jobs; publish_batch.committed announces them
    await this.publishing.createScheduledJobs(tx, organizationId, req.brandId, now, jobs);
    await chunked(itemRows, (part) =>
      tx
        .insertInto('publish_batch_items')
        .values(part as never)
        .execute(),
    );
    await chunked(targetRows, (part) =>
      tx
        .insertInto('publish_batch_targets')
        .values(part as never)
        .execute(),
    );
    const status = await this.statusOf(tx, organizationId, (await batchesRepository.getBatch(tx, organizationId, batchId))!, false);
    await this.deps.events.record(tx, { organizationId, type: 'publish_batch.committed', data: status, sequenceKey: batchId });
  }

  private async replay(organizationId: string, key: string, requestHash: string): Promise<CommitAnswer | null> {
    const existing = await batchesRepository.findByIdempotencyKey(this.db, organizationId, key);
    if (!existing) return null;
    if (existing.request_hash !== requestHash)
      throw new AppError('publish_batch_idempotency_key_reused', {
        message: `idempotencyKey ${key} was used for batch ${existing.id} with a different request.`,
        details: { publishBatchId: existing.id },
      });
    return { kind: 'replayed', batch: await this.statusOf(this.db, organizationId, existing, true) };
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

  private async statusOf(db: Executor, organizationId: string, row: BatchRow, withPreview: boolean): Promise<PublishBatchStatusT> {
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
