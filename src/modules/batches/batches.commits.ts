/**
 * The write side of publish batches: preview, commit (dry run by default; otherwise the batch, its items,
 * assets, publish jobs and targets in one transaction through publishing's batch port) and idempotent
 * replays. The answers' statuses come from the read side (`batches.reads.ts`).
 */
import { createHash } from 'node:crypto';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import type { BatchJobToCreate } from '../publishing/publishing.module.js';
import { batchCommitsRepository, type NewBatchItem, type NewBatchTarget } from './batch-commits.repository.js';
import { type BatchPlan, BatchPlanner, type HeldSchedule, type PlannerPorts } from './batch-planner.js';
import type { BatchReads } from './batches.reads.js';
import { batchesRepository } from './batches.repository.js';
import {
  ASSET_ID_PREFIX,
  BATCH_ID_PREFIX,
  BATCH_ITEM_ID_PREFIX,
  BATCH_TARGET_ID_PREFIX,
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
/** the fields a stored preview and a commit naming it must share (generatedAt is only echoed) */
const PLANNED_FIELDS = ['brandId', 'items', 'from', 'productLinkComment', 'policy', 'existingAssignments'] as const;
/** how long a preview's schedule stays committable by its batchPreviewId */
const PREVIEW_TTL_MS = 24 * 3_600_000;

const plannedHash = (req: PublishBatchPreviewRequestT) =>
  createHash('sha256')
    .update(JSON.stringify(PLANNED_FIELDS.map((k) => req[k] ?? null)))
    .digest('hex');

export class BatchCommits {
  readonly planner: BatchPlanner;

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'>,
    readonly ports: PlannerPorts,
    private readonly reads: BatchReads,
  ) {
    this.planner = new BatchPlanner(deps.clock, ports);
  }

  private get db() {
    return this.deps.database.db;
  }

  async preview(organizationId: string, req: PublishBatchPreviewRequestT): Promise<PublishBatchPreviewT> {
    const plan = await this.planner.plan(this.db, organizationId, req);
    await this.keep(organizationId, req, plan);
    return plan.preview;
  }

  /** Stores the preview's schedule for PREVIEW_TTL_MS, so a commit may name its batchPreviewId. */
  private async keep(organizationId: string, req: PublishBatchPreviewRequestT, plan: BatchPlan): Promise<void> {
    const now = this.deps.clock.now();
    await batchesRepository.savePreview(this.db, {
      id: plan.preview.batchPreviewId,
      organizationId,
      brandId: req.brandId,
      requestHash: plannedHash(req),
      from: new Date(plan.preview.from!),
      schedule: plan.schedule,
      expiresAt: new Date(now.getTime() + PREVIEW_TTL_MS),
      at: now,
    });
  }

  /** The stored schedule a commit names, or why it cannot be used (409). */
  private async held(organizationId: string, batchPreviewId: string, req: PublishBatchPreviewRequestT): Promise<HeldSchedule> {
    const row = await batchesRepository.getPreview(this.db, organizationId, batchPreviewId);
    if (!row || row.expires_at.getTime() <= this.deps.clock.now().getTime())
      throw new AppError('publish_batch_preview_expired', {
        message: `No stored preview ${batchPreviewId} in the organization (previews are kept ${PREVIEW_TTL_MS / 3_600_000} hours); preview again.`,
        details: { batchPreviewId },
      });
    if (row.request_hash !== plannedHash(req))
      throw new AppError('publish_batch_preview_mismatch', {
        message: `The request differs from the one preview ${batchPreviewId} was made with (brandId, items, from, productLinkComment, policy and existingAssignments must be the same).`,
        details: { batchPreviewId },
      });
    const schedule = row.schedule as unknown as Pick<HeldSchedule, 'assignments' | 'warnings'>;
    return { batchPreviewId, from: row.from_at.getTime(), assignments: schedule.assignments, warnings: schedule.warnings };
  }

  async commit(organizationId: string, req: PublishBatchCommitRequestT): Promise<CommitAnswer> {
    const previewReq = Object.fromEntries(
      PREVIEW_FIELDS.filter((k) => req[k] !== undefined).map((k) => [k, req[k]]),
    ) as PublishBatchPreviewRequestT;
    const held = req.batchPreviewId ? await this.held(organizationId, req.batchPreviewId, previewReq) : undefined;
    if (req.dryRun !== false) {
      const plan = await this.planner.plan(this.db, organizationId, previewReq, held);
      if (!held) await this.keep(organizationId, previewReq, plan);
      return { kind: 'dry_run', body: { mode: 'dry_run', preview: plan.preview } };
    }
    if (!this.deps.config.gateOpen('SERVICE_PUBLISH_JOB_WRITE_ENABLED')) throw new AppError('publish_job_write_disabled');
    const { dryRun: _d, ...hashed } = req;
    const requestHash = createHash('sha256').update(JSON.stringify(hashed)).digest('hex');
    if (req.idempotencyKey) {
      const replay = await this.replay(organizationId, req.idempotencyKey, requestHash);
      if (replay) return replay;
    }
    await this.ports.publishing.ensureQueues();
    const batchId = newId(BATCH_ID_PREFIX);
    try {
      await this.db.transaction().execute(async (tx) => {
        // serialise commits of one organization so two batches never plan around each other's gaps
        await batchCommitsRepository.lockOrganization(tx, organizationId);
        // with a batchPreviewId: exactly that schedule, checked against the posts as they are inside the lock
        const plan = await this.planner.plan(tx, organizationId, previewReq, held);
        await this.persist(tx, organizationId, batchId, req, requestHash, plan);
      });
    } catch (err) {
      if (req.idempotencyKey && /duplicate key|unique/i.test(String((err as Error).message))) {
        const replay = await this.replay(organizationId, req.idempotencyKey, requestHash);
        if (replay) return replay;
      }
      throw err;
    }
    return { kind: 'created', batch: await this.reads.get(organizationId, batchId) };
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
    await batchCommitsRepository.insertBatch(tx, organizationId, {
      id: batchId,
      brandId: req.brandId,
      source: req.source ?? 'agent_batch',
      idempotencyKey: req.idempotencyKey ?? null,
      requestHash,
      freezeHorizonMinutes: req.freezeHorizonMinutes ?? 120,
      schedulePolicy: plan.policy,
      preview: {
        batchPreviewId: preview.batchPreviewId,
        from: preview.from,
        generatedAt: preview.generatedAt,
        assignmentCount: preview.assignmentCount,
        scheduledItemCount: preview.scheduledItemCount,
        unscheduledItemCount: preview.unscheduledItemCount,
        warnings: preview.warnings,
      },
      itemCount: plan.items.length,
      targetCount: plan.items.reduce((n, i) => n + i.targets.length, 0),
      at: now,
    });

    // one asset per clientAssetId of the brand (a later batch updates it)
    const assetIds = await batchCommitsRepository.upsertAssets(
      tx,
      organizationId,
      plan.items.map((i) => ({
        id: newId(ASSET_ID_PREFIX),
        brandId: req.brandId,
        clientAssetId: i.clientAssetId,
        productId: i.productId,
        title: i.title,
        productUrl: i.productUrl,
        text: i.text,
        media: i.rawMedia,
        mediaLibraryItemIds: i.mediaLibraryItemIds,
        lastBatchId: batchId,
        at: now,
      })),
    );

    const jobs: BatchJobToCreate[] = [];
    const itemRows: NewBatchItem[] = [];
    const targetRows: NewBatchTarget[] = [];
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
    await this.ports.publishing.createScheduledJobs(tx, organizationId, req.brandId, now, jobs);
    await batchCommitsRepository.insertItems(tx, organizationId, itemRows);
    await batchCommitsRepository.insertTargets(tx, organizationId, targetRows);
    const status = await this.reads.statusOf(tx, organizationId, (await batchesRepository.getBatch(tx, organizationId, batchId))!, false);
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
    return { kind: 'replayed', batch: await this.reads.statusOf(this.db, organizationId, existing, true) };
  }
}
