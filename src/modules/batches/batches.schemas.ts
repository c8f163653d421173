/** Publish batches and assets (spec "Publish batches"; ROUTES.md): request and response shapes. */
import { type Static, Type } from '@sinclair/typebox';
import { BatchPolicy, ListOf, MediaInputRef, Nullable, PaginationQuery, PlatformT } from '../../http/shared-schemas.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const BATCH_ID_PREFIX = 'pbt';
export const BATCH_ITEM_ID_PREFIX = 'pbi';
export const BATCH_TARGET_ID_PREFIX = 'pbtg';
export const ASSET_ID_PREFIX = 'ast';
const DateTime = (description?: string) => Type.String({ format: 'date-time', description });
const Obj = (description?: string) => Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });
const Id = Type.String({ minLength: 1, maxLength: 128 });
const DELAY_MAX = 86_400_000;

const BATCH_STATUSES = [
  'empty',
  'unscheduled',
  'scheduled',
  'partially_scheduled',
  'processing',
  'published',
  'partially_published',
  'needs_attention',
  'failed',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

const PublishBatchTarget = Type.Object(
  {
    platform: PlatformT,
    channelAccountId: Id,
    providerType: Type.Optional(
      Type.String({ maxLength: 64, description: 'Accepted for compatibility; the platform decides the provider.' }),
    ),
    settings: Type.Optional(Obj('Platform settings (capabilities settingRules).')),
    firstComment: Type.Optional(
      Type.Object(
        {
          content: Type.String({ minLength: 1, maxLength: 8000 }),
          delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: DELAY_MAX })),
        },
        { additionalProperties: false, description: "The target's own first comment; wins over productLinkComment." },
      ),
    ),
  },
  { $id: 'PublishBatchTarget', additionalProperties: false },
);

const PublishBatchItem = Type.Object(
  {
    clientAssetId: Type.String({ minLength: 1, maxLength: 200, description: 'Your id of the asset; one asset record per clientAssetId.' }),
    productId: Id,
    text: Type.String({ maxLength: 65_000 }),
    targets: Type.Array(PublishBatchTarget, { minItems: 1, maxItems: 20 }),
    productUrl: Type.Optional(Type.String({ maxLength: 2048, description: "Default: the product's productUrl." })),
    title: Type.Optional(Type.String({ maxLength: 500, description: "Default: the product's name." })),
    media: Type.Optional(Type.Array(MediaInputRef, { default: [], maxItems: 20 })),
    mediaLibraryItemIds: Type.Optional(Type.Array(Id, { default: [], maxItems: 20 })),
    priority: Type.Optional(Type.Number({ description: 'Higher is placed first (default 0).' })),
    manualScheduleAt: Type.Optional(DateTime('Placed at exactly this time (still checked for conflicts, with a warning).')),
  },
  { $id: 'PublishBatchItem', additionalProperties: false },
);

const ProductLinkCommentPolicy = Type.Object(
  {
    enabled: Type.Boolean({ default: false }),
    template: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'Placeholders {{productUrl}}, {{title}}, {{platform}}. Default "{{title}}: {{productUrl}}".',
      }),
    ),
    delayMs: Type.Integer({ minimum: 0, maximum: DELAY_MAX, default: 300_000 }),
    appendTracking: Type.Boolean({ default: true, description: 'utm_source=<platform>, utm_medium, utm_campaign on the product URL.' }),
    utmMedium: Type.String({ minLength: 1, maxLength: 250, default: 'organic_social' }),
    utmCampaign: Type.String({ minLength: 1, maxLength: 250, default: 'service_publish' }),
  },
  { $id: 'ProductLinkCommentPolicy', additionalProperties: false },
);

const ExistingAssignment = Type.Object(
  {
    platform: PlatformT,
    channelAccountId: Id,
    scheduledAt: DateTime(),
    clientAssetId: Type.Optional(Type.String({ maxLength: 200 })),
    productId: Type.Optional(Id),
  },
  { additionalProperties: false },
);

const previewFields = {
  brandId: Id,
  items: Type.Array(PublishBatchItem, { minItems: 1, maxItems: 10_000 }),
  from: Type.Optional(DateTime('Start of the horizon (default: now). Pass it to get the same schedule on preview and commit.')),
  generatedAt: Type.Optional(DateTime()),
  productLinkComment: Type.Optional(ProductLinkCommentPolicy),
  policy: Type.Optional({ ...BatchPolicy, description: "Default: the brand's default publishing profile scheduleSettings.batchPolicy." }),
  existingAssignments: Type.Optional(Type.Array(ExistingAssignment, { maxItems: 10_000 })),
};

export const PublishBatchPreviewRequest = Type.Object(previewFields, { $id: 'PublishBatchPreviewRequest', additionalProperties: false });
export type PublishBatchPreviewRequestT = Static<typeof PublishBatchPreviewRequest>;

export const PublishBatchCommitRequest = Type.Object(
  {
    ...previewFields,
    idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    batchPreviewId: Type.Optional(
      Type.String({
        pattern: '^pbp_[0-9A-F]{26}$',
        description:
          'Persist exactly the schedule of this preview (answered by the preview or a dry run, kept 24 hours) instead of planning again. The request fields of the preview (brandId, items, from, productLinkComment, policy, existingAssignments) must be sent unchanged (409 publish_batch_preview_mismatch). 409 publish_batch_preview_expired when unknown or expired; 409 publish_batch_preview_stale when posts created since then make one of its assignments break a rule (details.conflicts) or a time has passed; nothing is written then.',
      }),
    ),
    source: Type.String({ minLength: 1, maxLength: 64, default: 'agent_batch' }),
    freezeHorizonMinutes: Type.Integer({
      minimum: 0,
      maximum: 43_200,
      default: 120,
      description:
        'Stored with the batch and answered in its status, for a rebalancing that does not exist yet: no commit or other operation moves a scheduled target (a later commit plans around the posts already scheduled and never moves them), so the value changes nothing today.',
    }),
    dryRun: Type.Boolean({ default: true }),
  },
  { $id: 'PublishBatchCommitRequest', additionalProperties: true },
);
export type PublishBatchCommitRequestT = Static<typeof PublishBatchCommitRequest>;

const Assignment = Type.Object(
  {
    itemIndex: Type.Integer({ minimum: 0 }),
    targetIndex: Type.Integer({ minimum: 0 }),
    clientAssetId: Type.String(),
    productId: Type.String(),
    platform: Type.String(),
    channelAccountId: Type.String(),
    slotId: Nullable(Type.String()),
    slotAt: Nullable(Type.String({ description: "The slot occurrence's time before jitter." })),
    scheduledAt: DateTime(),
    jitterSeconds: Type.Integer(),
    manual: Type.Boolean(),
    firstComment: Nullable(Type.Object({ content: Type.String(), delayMs: Type.Integer() }, { additionalProperties: false })),
  },
  { $id: 'PublishBatchAssignment', additionalProperties: false },
);
const Warning = Type.Object(
  {
    rule: Type.String({ description: 'The rule: min_gap, product_cooldown, platform_daily_cap, duplicate_text_72h, plan_validation, ...' }),
    itemIndex: Nullable(Type.Integer()),
    targetIndex: Nullable(Type.Integer()),
    clientAssetId: Nullable(Type.String()),
    channelAccountId: Nullable(Type.String()),
    message: Type.String(),
    unscheduled: Type.Boolean({ description: 'The target was left unscheduled by this rule.' }),
    issues: Type.Optional(Type.Array(Obj())),
  },
  { $id: 'PublishBatchWarning', additionalProperties: false },
);

export const PublishBatchPreview = Type.Object(
  {
    mode: Type.Literal('preview'),
    batchPreviewId: Type.String({
      description:
        'Names this schedule: the same request and schedule give the same id. Kept 24 hours; a commit that sends it persists exactly these assignments (or answers 409 when they no longer hold).',
    }),
    organizationId: Type.String(),
    brandId: Type.String(),
    assignmentCount: Type.Integer({ minimum: 0 }),
    scheduledItemCount: Type.Integer({ minimum: 0 }),
    unscheduledItemCount: Type.Integer({ minimum: 0 }),
    assignments: Type.Array(Assignment),
    warnings: Type.Array(Warning),
    generatedAt: Type.Optional(DateTime()),
    from: Type.Optional(DateTime()),
    policy: Type.Optional(Obj('The policy used, with its defaults and source (request or profile).')),
  },
  { $id: 'PublishBatchPreview', additionalProperties: false },
);
export type PublishBatchPreviewT = Static<typeof PublishBatchPreview>;

const BatchTargetView = Type.Object(
  {
    publishBatchTargetId: Type.String(),
    platform: Type.String(),
    channelAccountId: Type.String(),
    slotId: Nullable(Type.String()),
    scheduledAt: Nullable(Type.String()),
    jitterSeconds: Nullable(Type.Integer()),
    postTargetId: Nullable(Type.String()),
    state: Type.String({ description: "The publish target's state, or unscheduled." }),
    providerPostId: Nullable(Type.String()),
    firstCommentState: Nullable(Type.String()),
  },
  { $id: 'PublishBatchStatusTarget', additionalProperties: false },
);
const BatchItemView = Type.Object(
  {
    publishBatchItemId: Type.String(),
    position: Type.Integer(),
    clientAssetId: Type.String(),
    assetId: Type.String(),
    productId: Type.String(),
    publishJobId: Nullable(Type.String()),
    targets: Type.Array(BatchTargetView),
  },
  { $id: 'PublishBatchStatusItem', additionalProperties: false },
);

export const PublishBatchStatus = Type.Object(
  {
    publishBatchId: Type.String(),
    organizationId: Type.String(),
    brandId: Type.String(),
    status: Type.Union(BATCH_STATUSES.map((s) => Type.Literal(s))),
    itemCount: Type.Integer({ minimum: 0 }),
    targetCount: Type.Integer({ minimum: 0 }),
    items: Type.Array(BatchItemView),
    source: Type.Optional(Type.String()),
    idempotencyKey: Type.Optional(Nullable(Type.String())),
    freezeHorizonMinutes: Type.Optional(
      Type.Integer({
        description:
          'As committed. Stored with the batch and answered in its status, for a rebalancing that does not exist yet: no commit or other operation moves a scheduled target (a later commit plans around the posts already scheduled and never moves them), so the value changes nothing today.',
      }),
    ),
    schedulePolicy: Type.Optional(Obj()),
    preview: Type.Optional(Obj('Summary of the preview the batch was committed from (counts and warnings).')),
    publishedTargetCount: Type.Optional(Type.Integer({ minimum: 0 })),
    failedTargetCount: Type.Optional(Type.Integer({ minimum: 0 })),
    queuedTargetCount: Type.Optional(Type.Integer({ minimum: 0 })),
    createdAt: Type.Optional(DateTime()),
    updatedAt: Type.Optional(DateTime()),
  },
  { $id: 'PublishBatchStatus', additionalProperties: false },
);
export type PublishBatchStatusT = Static<typeof PublishBatchStatus>;

export const PublishBatchDryRun = Type.Object(
  { mode: Type.Literal('dry_run'), preview: PublishBatchPreview },
  { $id: 'PublishBatchDryRun', additionalProperties: false, description: 'dryRun (the default): the preview the commit would persist.' },
);

export const BatchParams = Type.Object(
  { publishBatchId: Type.String({ pattern: `^${BATCH_ID_PREFIX}_${ULID}$`, description: `${BATCH_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);
export const BatchListQuery = Type.Object(
  { brandId: Type.Optional(Id), status: Type.Optional(Type.Union(BATCH_STATUSES.map((s) => Type.Literal(s)))), ...PaginationQuery },
  { additionalProperties: false },
);
export type BatchListQueryT = Static<typeof BatchListQuery>;
export const PublishBatchList = ListOf(PublishBatchStatus, undefined, 'PublishBatchList');

export const Asset = Type.Object(
  {
    assetId: Type.String({ description: `${ASSET_ID_PREFIX}_<ULID>` }),
    organizationId: Type.String(),
    brandId: Type.String(),
    clientAssetId: Type.String({ description: "The client's id of the asset (unique per brand)." }),
    productId: Type.String(),
    title: Nullable(Type.String()),
    productUrl: Nullable(Type.String()),
    text: Type.String(),
    mediaLibraryItemIds: Type.Array(Type.String(), { description: 'Media library items of the asset.' }),
    media: Type.Array(Obj()),
    lastPublishBatchId: Nullable(Type.String()),
    targets: Type.Array(
      Type.Object(
        {
          postTargetId: Type.String(),
          publishJobId: Type.String(),
          publishBatchId: Type.String(),
          platform: Type.String(),
          channelAccountId: Type.String(),
          scheduledAt: Nullable(Type.String()),
          state: Type.String(),
        },
        { additionalProperties: false },
      ),
      { description: 'The publish targets that used this asset.' },
    ),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'Asset', additionalProperties: false },
);
export type AssetT = Static<typeof Asset>;
export const AssetParams = Type.Object(
  { assetId: Type.String({ pattern: `^${ASSET_ID_PREFIX}_${ULID}$`, description: `${ASSET_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);
export const AssetListQuery = Type.Object(
  {
    brandId: Type.Optional(Id),
    productId: Type.Optional(Id),
    clientAssetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type AssetListQueryT = Static<typeof AssetListQuery>;
export const AssetList = ListOf(Asset, undefined, 'AssetList');
