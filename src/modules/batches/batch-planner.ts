/**
 * Turns a batch request into a schedule: validates what the schema cannot (policy consistency, the
 * brand, products and channels of the organization), picks the policy (request, else the brand's
 * default profile), runs per-target plan validation and the product link comment, reads the channels'
 * already scheduled posts, and calls the pure scheduler. Preview and commit both go through here, so
 * a commit persists exactly what its preview showed.
 */
import { createHash } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { BatchPolicy, type BatchPolicyT } from '../../http/shared-schemas.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, type FieldIssue } from '../../platform/errors.js';
import { buildUtmLinks } from '../../platform/url/utm.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { Executor } from '../database.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import type { MediaInputT, PublishingBatchPort, StoredMedia } from '../publishing/publishing.module.js';
import { heldScheduleConflicts } from './batch-preview-check.js';
import {
  type Assignment,
  type ExistingPost,
  isTimeZone,
  type SchedulerItem,
  type SchedulerResult,
  type SchedulerWarning,
  scheduleBatch,
} from './batch-scheduler.js';
import type { PublishBatchPreviewRequestT, PublishBatchPreviewT } from './batches.schemas.js';

/** What the planner reads of other areas, each through its owner's port. */
export interface PlannerPorts {
  publishing: PublishingBatchPort;
  profiles: ProfilesReadPort;
  brands: BrandsReadPort;
}

const DUPLICATE_LOOKBACK_MS = 72 * 3_600_000;
const DEFAULT_TEMPLATE = '{{title}}: {{productUrl}}';

interface PlannedTarget {
  platform: string;
  channelAccountId: string;
  settings: Record<string, unknown>;
  firstComment: { content: string; delayMs: number } | null;
  slotId: string | null;
  scheduledAt: string | null;
  jitterSeconds: number | null;
}

interface PlannedItem {
  clientAssetId: string;
  productId: string;
  text: string;
  title: string | null;
  productUrl: string | null;
  media: StoredMedia[];
  rawMedia: Record<string, unknown>[];
  mediaLibraryItemIds: string[];
  targets: PlannedTarget[];
}

/** A stored preview's schedule, which a commit naming its batchPreviewId persists as it is. */
export interface HeldSchedule {
  batchPreviewId: string;
  from: number;
  assignments: Assignment[];
  /** every warning of the preview (the scheduler's and the planner's), as it answered them */
  warnings: SchedulerWarning[];
}

export interface BatchPlan {
  preview: PublishBatchPreviewT;
  /** the schedule as stored with a preview (assignments without their comments, every warning) */
  schedule: { assignments: Assignment[]; warnings: SchedulerWarning[] };
  items: PlannedItem[];
  policy: BatchPolicyT & { source: Record<string, unknown> };
}

const invalid = (message: string, fields: FieldIssue[]) => new AppError('invalid_public_publish_batch_request', { message, fields });
const at = (...path: (string | number)[]): FieldIssue[] => [{ path: path.map(String), source: 'body' }];

/** Checks a policy beyond its schema: jitter order, time zones, unique slot ids. */
function checkPolicy(policy: BatchPolicyT, base: string[]): void {
  policy.slots.forEach((s, i) => {
    if (s.jitterSecondsMin > s.jitterSecondsMax)
      throw invalid(`policy.slots[${i}]: jitterSecondsMin (${s.jitterSecondsMin}) exceeds jitterSecondsMax (${s.jitterSecondsMax}).`, [
        { path: [...base, 'slots', String(i), 'jitterSecondsMin'], source: 'body' },
      ]);
    if (!isTimeZone(s.timezone))
      throw invalid(`policy.slots[${i}]: unknown time zone ${s.timezone}.`, [
        { path: [...base, 'slots', String(i), 'timezone'], source: 'body' },
      ]);
  });
  if (new Set(policy.slots.map((s) => s.id)).size !== policy.slots.length)
    throw invalid('Slot ids of a policy must be unique.', [{ path: [...base, 'slots'], source: 'body' }]);
}

function render(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(productUrl|title|platform)\s*\}\}/g, (_, k: string) => values[k] ?? '');
}

export class BatchPlanner {
  constructor(
    private readonly clock: Clock,
    private readonly ports: PlannerPorts,
  ) {}

  /**
   * Plans the request; with `held`, keeps that stored schedule instead of planning one, after checking it
   * against the channels' posts as they are now (409 publish_batch_preview_stale when it no longer holds).
   */
  async plan(db: Executor, organizationId: string, req: PublishBatchPreviewRequestT, held?: HeldSchedule): Promise<BatchPlan> {
    const now = this.clock.now();
    const { publishing } = this.ports;
    const brand = await this.ports.brands.brand(db, organizationId, req.brandId);
    if (!brand) throw invalid(`No brand ${req.brandId} in the organization.`, at('brandId'));

    // ---- policy: the request's, else the brand's default profile's
    let policy: BatchPolicyT;
    let source: Record<string, unknown>;
    if (req.policy) {
      policy = Value.Default(BatchPolicy, Value.Clone(req.policy)) as BatchPolicyT;
      checkPolicy(policy, ['policy']);
      source = { kind: 'request' };
    } else {
      const profile = await this.ports.profiles.defaultProfile(db, organizationId, req.brandId);
      const saved = profile?.scheduleSettings.batchPolicy;
      if (!profile || saved === undefined)
        throw invalid(
          `No policy given and brand ${req.brandId} has no default publishing profile with scheduleSettings.batchPolicy; send policy or save one on the default profile.`,
          at('policy'),
        );
      policy = Value.Default(BatchPolicy, Value.Clone(saved)) as BatchPolicyT;
      if (!Value.Check(BatchPolicy, policy))
        throw invalid(`The batchPolicy saved on profile ${profile.id} is not valid; save the profile again.`, at('policy'));
      checkPolicy(policy, ['policy']);
      source = { kind: 'profile', profileId: profile.id };
    }

    // ---- products and channels of the organization
    const seenAssets = new Map<string, number>();
    req.items.forEach((item, i) => {
      const first = seenAssets.get(item.clientAssetId);
      if (first !== undefined)
        throw invalid(`items[${i}].clientAssetId ${item.clientAssetId} repeats items[${first}].`, at('items', i, 'clientAssetId'));
      seenAssets.set(item.clientAssetId, i);
      const channels = new Set<string>();
      item.targets.forEach((t, j) => {
        if (channels.has(t.channelAccountId))
          throw invalid(`items[${i}] names channel ${t.channelAccountId} twice.`, at('items', i, 'targets', j, 'channelAccountId'));
        channels.add(t.channelAccountId);
      });
    });
    const productIds = [...new Set(req.items.map((i) => i.productId))];
    const products = new Map((await this.ports.brands.products(db, organizationId, req.brandId, productIds)).map((p) => [p.id, p]));
    req.items.forEach((item, i) => {
      if (!products.has(item.productId))
        throw invalid(`No product ${item.productId} in brand ${req.brandId} of the organization.`, at('items', i, 'productId'));
    });
    const channelIds = [...new Set(req.items.flatMap((i) => i.targets.map((t) => t.channelAccountId)))];
    const channels = await publishing.channelFacts(db, organizationId, channelIds);
    for (const [i, item] of req.items.entries())
      for (const [j, t] of item.targets.entries())
        if (!channels.has(t.channelAccountId))
          throw invalid(`No channel account ${t.channelAccountId} in the organization.`, at('items', i, 'targets', j, 'channelAccountId'));

    // ---- per item: media, plan validation, product link comment
    const plc = req.productLinkComment;
    const extraWarnings: SchedulerWarning[] = [];
    const planned: PlannedItem[] = [];
    const schedulerItems: SchedulerItem[] = [];
    for (const [i, item] of req.items.entries()) {
      const product = products.get(item.productId)!;
      const productUrl = item.productUrl ?? product.productUrl ?? null;
      const title = item.title ?? product.name;
      const targets: PlannedTarget[] = item.targets.map((t, j) => {
        let firstComment = t.firstComment ? { content: t.firstComment.content, delayMs: t.firstComment.delayMs ?? 0 } : null;
        if (!firstComment && plc?.enabled) {
          const comments = publishing.firstCommentSupport(t.platform);
          const base = {
            itemIndex: i,
            targetIndex: j,
            clientAssetId: item.clientAssetId,
            channelAccountId: t.channelAccountId,
            unscheduled: false,
          };
          if (!comments.supported) {
            extraWarnings.push({
              ...base,
              rule: 'product_link_comment_unsupported',
              message: `${comments.displayName} does not support first comments; no product link comment is posted.`,
            });
          } else if (!productUrl) {
            extraWarnings.push({
              ...base,
              rule: 'product_link_missing',
              message: `Product ${item.productId} has no productUrl; no product link comment is posted.`,
            });
          } else {
            let url = productUrl;
            if (plc.appendTracking) {
              const built = buildUtmLinks({ urls: [productUrl], source: t.platform, medium: plc.utmMedium, campaign: plc.utmCampaign });
              if (built.links[0]) url = built.links[0].link;
              else
                extraWarnings.push({
                  ...base,
                  rule: 'product_link_tracking_skipped',
                  message: `The product URL cannot carry UTM parameters (${built.invalid[0]?.reason}); it is posted as given.`,
                });
            }
            firstComment = {
              content: render(plc.template ?? DEFAULT_TEMPLATE, { productUrl: url, title, platform: t.platform }),
              delayMs: plc.delayMs,
            };
          }
        }
        return {
          platform: t.platform,
          channelAccountId: t.channelAccountId,
          settings: t.settings ?? {},
          firstComment,
          slotId: null,
          scheduledAt: null,
          jitterSeconds: null,
        };
      });
      const { validation, media } = await publishing.checkItem(db, organizationId, {
        brandId: req.brandId,
        productId: item.productId,
        text: item.text,
        media: (item.media ?? []) as MediaInputT[],
        mediaLibraryItemIds: item.mediaLibraryItemIds ?? [],
        targets: targets.map((t) => ({
          platform: t.platform,
          channelAccountId: t.channelAccountId,
          settings: { ...t.settings, ...(t.firstComment ? { firstComment: t.firstComment } : {}) },
        })),
        channels,
      });
      const planBlocking = validation.issues.filter((x) => x.severity === 'blocking' && x.targetIndex === null);
      schedulerItems.push({
        clientAssetId: item.clientAssetId,
        productId: item.productId,
        text: item.text,
        ...(item.priority !== undefined ? { priority: item.priority } : {}),
        ...(item.manualScheduleAt ? { manualScheduleAt: Date.parse(item.manualScheduleAt) } : {}),
        targets: targets.map((t, j) => {
          const blocking = [...planBlocking, ...(validation.targets[j]?.issues ?? []).filter((x) => x.severity === 'blocking')];
          return {
            platform: t.platform,
            channelAccountId: t.channelAccountId,
            ...(blocking.length > 0 ? { blocked: { message: blocking.map((b) => `${b.code}: ${b.message}`).join(' ') } } : {}),
          };
        }),
      });
      planned.push({
        clientAssetId: item.clientAssetId,
        productId: item.productId,
        text: item.text,
        title,
        productUrl,
        media,
        rawMedia: (item.media ?? []) as Record<string, unknown>[],
        mediaLibraryItemIds: [
          ...new Set([...media.map((m) => m.mediaLibraryItemId).filter((x): x is string => !!x), ...(item.mediaLibraryItemIds ?? [])]),
        ],
        targets,
      });
    }

    // ---- existing posts of these channels (the organization's and the client's)
    // a `from` in the past starts now: nothing is placed where it would publish late in a burst
    const from = held ? held.from : Math.max(req.from ? Date.parse(req.from) : Math.ceil(now.getTime() / 60_000) * 60_000, now.getTime());
    const horizonEnd = from + policy.horizonDays * 86_400_000;
    const existing: ExistingPost[] = [];
    for (const p of await publishing.placedPosts(
      db,
      organizationId,
      channelIds,
      new Date(from - DUPLICATE_LOOKBACK_MS),
      new Date(horizonEnd + DUPLICATE_LOOKBACK_MS),
    ))
      existing.push({
        channelAccountId: p.channelAccountId,
        platform: p.platform,
        at: p.at.getTime(),
        productId: p.productId,
        text: p.text,
      });
    for (const e of req.existingAssignments ?? [])
      existing.push({
        channelAccountId: e.channelAccountId,
        platform: e.platform,
        at: Date.parse(e.scheduledAt),
        productId: e.productId ?? null,
      });

    // the seed depends on what preview and commit share: organization, brand, policy, from
    const seed = createHash('sha256')
      .update(JSON.stringify([organizationId, req.brandId, policy, from]))
      .digest('hex');
    let result: SchedulerResult;
    if (held) {
      const conflicts = heldScheduleConflicts({
        slots: policy.slots,
        items: schedulerItems,
        existing,
        assignments: held.assignments,
        now: now.getTime(),
      });
      if (conflicts.length > 0)
        throw new AppError('publish_batch_preview_stale', {
          message: `Preview ${held.batchPreviewId} no longer holds: ${conflicts.length} of its ${held.assignments.length} assignments now break ${[...new Set(conflicts.map((c) => c.rule))].join(', ')}. Preview again and commit the new batchPreviewId.`,
          details: { batchPreviewId: held.batchPreviewId, conflicts: conflicts.slice(0, 100) },
        });
      result = { assignments: held.assignments, warnings: [] };
    } else result = scheduleBatch({ policy, items: schedulerItems, existing, seed, from });
    for (const a of result.assignments) {
      const t = planned[a.itemIndex]!.targets[a.targetIndex]!;
      t.slotId = a.slotId;
      t.scheduledAt = a.scheduledAt;
      t.jitterSeconds = a.jitterSeconds;
    }
    const scheduledItems = new Set(result.assignments.map((a) => a.itemIndex));
    const warnings = held ? held.warnings.map((w) => ({ ...w })) : [...result.warnings, ...extraWarnings].map((w) => ({ ...w }));
    // content-addressed: the same request and the same schedule give the same id (stored once, see BatchCommits)
    const previewId = held
      ? held.batchPreviewId.slice(4)
      : createHash('sha256')
          .update(JSON.stringify([seed, req.items, req.productLinkComment ?? null, req.existingAssignments ?? [], result.assignments]))
          .digest('hex')
          .slice(0, 26)
          .toUpperCase();
    const preview: PublishBatchPreviewT = {
      mode: 'preview',
      batchPreviewId: `pbp_${previewId}`,
      organizationId,
      brandId: req.brandId,
      assignmentCount: result.assignments.length,
      scheduledItemCount: scheduledItems.size,
      unscheduledItemCount: req.items.length - scheduledItems.size,
      assignments: result.assignments.map((a) => ({
        ...a,
        firstComment: planned[a.itemIndex]!.targets[a.targetIndex]!.firstComment,
      })),
      warnings,
      generatedAt: req.generatedAt ?? now.toISOString(),
      from: new Date(from).toISOString(),
      policy: { ...policy, source },
    };
    return { preview, schedule: { assignments: result.assignments, warnings }, items: planned, policy: { ...policy, source } };
  }
}
