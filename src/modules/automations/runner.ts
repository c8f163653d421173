/**
 * Executes queued runs of built-in kinds (rss_feed, product_rotation) in the worker. A run moves
 * queued -> running in its own transaction (a second delivery of the job finds it running and does
 * nothing), then ends succeeded or failed with its output. Every publish job is created through the
 * publishing service with an idempotency key per source and item, and the item is remembered right
 * after, so a crashed run repeated later replays instead of posting twice.
 */

import { AppError } from '../../platform/errors.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { MediaRead } from '../media/media.module.js';
import type { PublishingPlansPort, PublishingRead } from '../publishing/publishing.module.js';
import { automationRunnerRepository } from './automation-runner.repository.js';
import { type RunRow, automationsRepository as repo, type SourceRow } from './automations.repository.js';
import { type AutomationsService, RUN_QUEUE_OPTIONS } from './automations.service.js';
import type { AutomationRunOutput } from './automations.tables.js';
import type { BatchCommitter } from './batch-committer.js';
import { type FeedItemView, type FeedValidators, fetchFeed, oldestFirst, RunFailure, readFeed, renderTemplate } from './feed.js';

/** A run still `running` this long after it started is taken over by the job's next delivery. */
const RUN_LEASE_MS = RUN_QUEUE_OPTIONS.expireInSeconds * 1000;

export interface RunnerPorts {
  /** creates the plans of feed items (a write) */
  plans: PublishingPlansPort;
  slots: PublishingRead['slots'];
  imports: MediaRead['imports'];
  batches: BatchCommitter | null;
  /** the brands area's products (product_rotation) */
  products: BrandsReadPort['allProducts'];
}

type RssConfig = {
  feedUrl: string;
  profileId?: string;
  targets?: Array<{ platform: string; channelAccountId: string }>;
  textTemplate: string;
  mode: 'draft' | 'schedule' | 'publish';
  maxItemsPerRun: number;
  backfill: string;
};

type RotationConfig = {
  productIds?: string[];
  profileId?: string;
  itemsPerRun: number;
  textTemplate: string;
  batchPolicy?: Record<string, unknown>;
};

interface KindResult {
  output: AutomationRunOutput;
  /** source state to keep (not kept by dry runs) */
  state?: Record<string, unknown>;
}

/** The error a run ends with: the run's own failure class, a catalog code, or internal_error. */
function runError(err: unknown): { class: string; message: string } {
  if (err instanceof RunFailure) return { class: err.errorClass, message: err.message };
  if (err instanceof AppError) return { class: err.code, message: err.message };
  return { class: 'internal_error', message: 'The run stopped on an unexpected error.' };
}

export class AutomationRunner {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock'>,
    private readonly service: AutomationsService,
    private readonly ports: RunnerPorts,
    /** the guarded client feeds are fetched with (its timeout and size limit are the feed settings) */
    private readonly client: GuardedHttpClient,
  ) {}

  async execute(organizationId: string, runId: string): Promise<void> {
    const db = this.deps.database.db;
    const claimed = await db.transaction().execute(async (tx) => {
      const run = await repo.getRun(tx, organizationId, runId, { forUpdate: true });
      if (!run) return null;
      if (run.status === 'queued') return this.service.move(tx, run, 'running');
      // the job came back after its expiry: the worker that held it stopped mid-run; items are
      // remembered one by one and jobs carry idempotency keys, so carrying on creates nothing twice
      const interrupted =
        run.status === 'running' && run.started_at && this.deps.clock.now().getTime() - run.started_at.getTime() >= RUN_LEASE_MS;
      return interrupted ? run : null;
    });
    if (!claimed) return;
    const source = (await repo.getSource(db, organizationId, claimed.source_id)) ?? undefined;
    let result: KindResult;
    try {
      result = await this.runKind(source, claimed);
    } catch (err) {
      const error = runError(err);
      await db.transaction().execute(async (tx) => {
        const run = await repo.getRun(tx, organizationId, runId, { forUpdate: true });
        if (run?.status === 'running') await this.service.move(tx, run, 'failed', { error });
      });
      return;
    }
    await db.transaction().execute(async (tx) => {
      const run = await repo.getRun(tx, organizationId, runId, { forUpdate: true });
      if (result.state && !claimed.dry_run) {
        await automationRunnerRepository.setSourceState(tx, organizationId, claimed.source_id, result.state);
      }
      // an outside cancel while running wins; the output is still kept
      if (run?.status === 'running') await this.service.move(tx, run, 'succeeded', { output: result.output });
      else if (run)
        await repo.updateRun(tx, run.id, { status: run.status, output: { ...run.output, ...result.output }, at: this.deps.clock.now() });
    });
  }

  /**
   * A dry run computed now and stored nowhere (POST /v1/automation-runs without dryRun: false): the kind
   * runs in dry-run mode (no feed validators kept, no item remembered, no image imported, plans and
   * batches previewed only) and the run is answered as it ended.
   */
  async preview(source: SourceRow, run: RunRow): Promise<RunRow> {
    const startedAt = this.deps.clock.now();
    const dry = { ...run, dry_run: true, status: 'running', started_at: startedAt };
    const ended = (extra: Partial<RunRow>): RunRow => {
      const at = this.deps.clock.now();
      return { ...dry, finished_at: at, updated_at: at, ...extra };
    };
    try {
      const result = await this.runKind(source, dry);
      return ended({ status: 'succeeded', output: result.output });
    } catch (err) {
      return ended({ status: 'failed', error: runError(err) });
    }
  }

  private async runKind(source: SourceRow | undefined, run: RunRow): Promise<KindResult> {
    if (!source || source.deleted_at || !source.enabled) throw new RunFailure('source_not_runnable', 'The source is disabled or deleted.');
    if (source.kind === 'rss_feed') return this.rss(source, run);
    if (source.kind === 'product_rotation') return this.rotation(source, run);
    throw new RunFailure('kind_not_executable', `Runs of kind ${source.kind} are recorded by an outside agent.`);
  }

  private async seen(sourceId: string, keys: string[]): Promise<boolean> {
    return automationRunnerRepository.seenAny(this.deps.database.db, sourceId, keys);
  }

  private async remember(sourceId: string, keys: string[]): Promise<void> {
    await automationRunnerRepository.remember(this.deps.database.db, sourceId, keys, this.deps.clock.now());
  }

  private async rss(source: SourceRow, run: RunRow): Promise<KindResult> {
    const config = source.config as unknown as RssConfig;
    const state = source.state as { etag?: string; lastModified?: string; initialized?: boolean };
    const validators: FeedValidators = run.dry_run ? {} : { etag: state.etag, lastModified: state.lastModified };
    const fetched = await fetchFeed(this.client, config.feedUrl, validators, {
      maxBytes: this.deps.config.env.SERVICE_AUTOMATION_FEED_MAX_BYTES,
    });
    const output: AutomationRunOutput = { publishJobIds: [], publishBatchIds: [], itemsSeen: 0, itemsCreated: 0, items: [] };
    if (fetched.kind === 'not_modified') {
      output.items = [];
      return { output, state: { ...state, initialized: true } };
    }
    const items = await readFeed(fetched.body);
    output.itemsSeen = items.length;
    const fresh: FeedItemView[] = [];
    for (const item of items) if (!(await this.seen(source.id, item.keys))) fresh.push(item);

    let candidates = oldestFirst(fresh);
    const skipped: FeedItemView[] = [];
    if (!state.initialized) {
      const backfill = config.backfill ?? 'none';
      if (backfill === 'none') {
        // only items published after the source was created; undated ones cannot be placed, so they are skipped
        const keep = candidates.filter((i) => i.date && i.date.getTime() > source.created_at.getTime());
        skipped.push(...candidates.filter((i) => !keep.includes(i)));
        candidates = keep;
      } else {
        const n = Number(backfill.slice('latest:'.length));
        const keep = candidates.slice(Math.max(0, candidates.length - n));
        skipped.push(...candidates.slice(0, candidates.length - keep.length));
        candidates = keep;
      }
    }
    const take = candidates.slice(0, config.maxItemsPerRun);
    if (!run.dry_run) for (const item of skipped) await this.remember(source.id, item.keys);

    for (const item of take) {
      const entry: Record<string, unknown> = { title: item.title, link: item.link || null, keys: item.keys.slice(0, 2) };
      output.items!.push(entry);
      const text = renderTemplate(config.textTemplate, { title: item.title, link: item.link, summary: item.summary });
      entry.text = text;
      try {
        const outcome = await this.createJob(source, run, config, item, text, entry);
        if (outcome) {
          entry.status = run.dry_run ? 'would_create' : 'created';
          if (!run.dry_run) {
            entry.publishJobId = outcome;
            output.publishJobIds.push(outcome);
          }
          output.itemsCreated += 1;
        }
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        entry.status = 'invalid';
        entry.error = { class: err.code, message: err.message, ...(err.details?.issues ? { issues: err.details.issues } : {}) };
      }
      if (!run.dry_run) await this.remember(source.id, item.keys);
    }
    return { output, state: { ...state, ...fetched.validators, initialized: true } };
  }

  /** One publish job for one item; returns the job id (or 'dry_run'). Validation failures throw AppError. */
  private async createJob(
    source: SourceRow,
    run: RunRow,
    config: RssConfig,
    item: FeedItemView,
    text: string,
    entry: Record<string, unknown>,
  ) {
    const ports = this.ports;
    const mediaLibraryItemIds: string[] = [];
    if (item.imageUrl) {
      entry.imageUrl = item.imageUrl;
      if (!run.dry_run) {
        try {
          const imported = await ports.imports.import(
            { clientAddress: 'worker', principalKey: `automation:${source.id}`, organizationId: source.organization_id },
            { url: item.imageUrl, brandId: source.brand_id, dryRun: false, altText: item.title.slice(0, 2000) || null },
          );
          if (imported.kind === 'item') mediaLibraryItemIds.push(imported.item.mediaLibraryItemId);
        } catch (err) {
          // the post goes out without its image; the reason stays in the run output
          entry.imageError =
            err instanceof AppError
              ? { class: err.code, message: err.message }
              : { class: 'image_import_failed', message: 'The image could not be imported.' };
        }
      }
    }
    let scheduleAt: string | undefined;
    if (config.mode === 'schedule') {
      const slot = await ports.slots.recommend(source.organization_id, {
        brandId: source.brand_id,
        ...(config.profileId ? { profileId: config.profileId } : {}),
        ...(config.targets?.[0] ? { channelAccountId: config.targets[0].channelAccountId } : {}),
      });
      scheduleAt = (slot.recommendation as { scheduleAt?: string } | null)?.scheduleAt;
      if (!scheduleAt)
        throw new AppError('publish_plan_validation_failed', { message: 'No free publishing slot was found for this item.' });
    }
    const answer = await ports.plans.create(source.organization_id, {
      plan: {
        brandId: source.brand_id,
        text,
        ...(config.profileId ? { profileId: config.profileId } : {}),
        targets: (config.targets ?? []) as never,
        media: [],
        mediaLibraryItemIds,
        ...(scheduleAt ? { scheduleAt } : {}),
      },
      dryRun: run.dry_run,
      enqueue: config.mode === 'publish',
      title: item.title.slice(0, 200) || undefined,
      idempotencyKey: `automation:${source.id}:${item.keys[0]}`.slice(0, 200),
    });
    if (answer.kind === 'dry_run') return 'dry_run';
    return answer.job.publishJobId;
  }

  private async rotation(source: SourceRow, run: RunRow): Promise<KindResult> {
    const config = source.config as unknown as RotationConfig;
    const state = source.state as { rotationPosition?: number };
    const batches = this.ports.batches;
    if (!batches) throw new RunFailure('batches_unavailable', 'Publish batches are not available in this deployment.');
    let products = await this.ports.products(this.deps.database.db, source.organization_id, source.brand_id);
    if (config.productIds) {
      const byId = new Map(products.map((p) => [p.id, p]));
      products = config.productIds.map((id) => byId.get(id)).filter((p): p is (typeof products)[number] => !!p);
    }
    if (products.length === 0) throw new RunFailure('no_products', 'The brand has no products to rotate through.');
    const start = (state.rotationPosition ?? 0) % products.length;
    const count = Math.min(config.itemsPerRun, products.length);
    const picked = Array.from({ length: count }, (_, i) => products[(start + i) % products.length]!);
    const items = picked.map((p) => ({
      productId: p.id,
      text: renderTemplate(config.textTemplate, { title: p.name, name: p.name, link: p.productUrl ?? '', summary: '' }),
    }));
    const output: AutomationRunOutput = {
      publishJobIds: [],
      publishBatchIds: [],
      itemsSeen: products.length,
      itemsCreated: 0,
      items: items.map((i) => ({ ...i })),
    };
    const committed = await batches.commit({
      organizationId: source.organization_id,
      brandId: source.brand_id,
      ...(config.profileId ? { profileId: config.profileId } : {}),
      items,
      ...(config.batchPolicy ? { policy: config.batchPolicy } : {}),
      dryRun: run.dry_run,
      idempotencyKey: `automation:${run.id}`,
    });
    if (committed.publishBatchId) output.publishBatchIds.push(committed.publishBatchId);
    output.publishJobIds.push(...committed.publishJobIds);
    output.itemsCreated = run.dry_run ? items.length : committed.publishJobIds.length || items.length;
    return { output, state: { ...state, rotationPosition: (start + count) % products.length } };
  }
}
