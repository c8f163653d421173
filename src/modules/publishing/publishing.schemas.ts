/** TypeBox shapes of the publishing routes (spec: Publish plans and jobs, PublishSlot). */
import { type Static, Type } from '@sinclair/typebox';
import { IdOf, ListOf, Literals, MediaInputRef, Nullable, NullOr, PaginationQuery, PlatformT } from '../../http/shared-schemas.js';
import { JOB_STATUSES, TARGET_STATES } from './publish-states.js';

const lit = Literals;
export const DateTime = (description?: string) => Type.String({ format: 'date-time', description });

const MAX_LATENESS_DESCRIPTION =
  "The lateness limit: a target the worker finds due more than this many minutes after its time (its schedule, or when it was queued) is not published but moves to `missed` (event publish_target.missed). Omitted: the profile's `scheduleSettings.maxLatenessMinutes`, else no limit; null: no limit.";
const MaxLateness = NullOr(Type.Integer({ minimum: 0, maximum: 10080, description: MAX_LATENESS_DESCRIPTION }));

export { MediaInput } from '../../http/shared-schemas.js';

export const PublishTargetInput = Type.Object(
  {
    platform: PlatformT,
    channelAccountId: Type.String(),
    text: Type.Optional(
      Type.String({
        description: 'Target body; omit to inherit the plan text. An empty string stays empty.',
      }),
    ),
    settings: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Platform settings (capabilities settingRules); settings.firstComment = {content, delayMs} posts a first comment.',
        },
      ),
    ),
  },
  { $id: 'PublishTargetInput', additionalProperties: false },
);
const PublishTargetInputRef = Type.Unsafe<Static<typeof PublishTargetInput>>(Type.Ref('PublishTargetInput'));

const PublicPublishPlanInput = Type.Object(
  {
    brandId: Type.String(),
    text: Type.String(),
    media: Type.Array(MediaInputRef),
    targets: Type.Array(PublishTargetInputRef),
    productId: Type.Optional(Type.String()),
  },
  { $id: 'PublicPublishPlanInput', additionalProperties: false, description: 'The plan of the specification: explicit media and targets.' },
);

const AgentPlan = Type.Object(
  {
    brandId: Type.String(),
    text: Type.String(),
    profileId: Type.Optional(
      Type.String({ description: 'When targets are omitted, the enabled connected channels of this profile become the targets.' }),
    ),
    productId: Type.Optional(Type.String()),
    // no `default` keywords: the plan is also a branch of the preview's union, where ajv cannot apply them
    media: Type.Optional(Type.Array(MediaInputRef, { description: 'Default: none.' })),
    mediaLibraryItemIds: Type.Optional(Type.Array(Type.String(), { description: 'Media library items, after media. Default: none.' })),
    targets: Type.Optional(Type.Array(PublishTargetInputRef, { description: 'Default: none (then the profile expands into targets).' })),
    scheduleAt: Type.Optional(DateTime('Publish at this time; more than a minute in the past is a blocking issue.')),
    maxLatenessMinutes: Type.Optional(MaxLateness),
  },
  {
    $id: 'AgentPublishPlan',
    additionalProperties: false,
    description: 'The plan of POST /v1/agent/publish and POST /v1/publish/jobs: profile expansion, library items, scheduleAt.',
  },
);

/** The preview takes either plan; a PublicPublishPlanInput is also a valid AgentPublishPlan. */
export const PlanPreviewRequest = Type.Union([PublicPublishPlanInput, AgentPlan], {
  $id: 'PublishPlanPreviewRequest',
  description:
    'A PublicPublishPlanInput or the plan of an agent publish / publish job request (AgentPublishPlan), previewed exactly as the create would resolve it.',
});

export const AgentPublishRequest = Type.Object(
  {
    plan: AgentPlan,
    dryRun: Type.Optional(Type.Boolean({ default: true })),
    enqueue: Type.Optional(Type.Boolean({ default: false })),
    title: Type.Optional(Type.String()),
    idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    runAfter: Type.Optional(DateTime()),
  },
  { $id: 'AgentPublishRequest', additionalProperties: false },
);

export const PlanIssueSchema = Type.Object(
  {
    targetIndex: Nullable(Type.Integer()),
    channelAccountId: Nullable(Type.String()),
    path: Type.Array(Type.String()),
    code: Type.String(),
    severity: lit(['blocking', 'warning']),
    message: Type.String(),
  },
  { $id: 'PlanIssue', additionalProperties: false },
); /** Shared component (registered at the root): a preview lists issues at two levels. */
const PlanIssue = Type.Unsafe<Static<typeof PlanIssueSchema>>(Type.Ref('PlanIssue'));

const PreviewTarget = Type.Object(
  {
    index: Type.Integer(),
    platform: Type.String(),
    channelAccountId: Type.String(),
    text: Type.String(),
    settings: Type.Object({}, { additionalProperties: true }),
    textLength: Type.Integer({
      description: 'Length as the platform counts it (X weighted, YouTube/Threads bytes).',
    }),
    maxTextLength: Nullable(Type.Integer()),
    channelState: Nullable(Type.String()),
    issues: Type.Array(PlanIssue),
  },
  { $id: 'PlanPreviewTarget', additionalProperties: false },
);

export const PlanPreview = Type.Object(
  {
    mode: Type.Literal('preview'),
    valid: Type.Boolean(),
    targets: Type.Array(PreviewTarget),
    issues: Type.Array(PlanIssue, {
      description: 'Every issue: plan-level ones and those of each target.',
    }),
  },
  { $id: 'PlanPreview', additionalProperties: false },
);

export const PublishTargetErrorSchema = Type.Object(
  {
    code: Type.String(),
    category: Type.String(),
    message: Type.String(),
    providerResponse: Type.Unknown(),
    at: Type.String(),
  },
  { $id: 'PublishTargetError', additionalProperties: false },
);
const TargetErrorT = Type.Unsafe<Static<typeof PublishTargetErrorSchema>>(Type.Ref('PublishTargetError'));

const PublishTarget = Type.Object(
  {
    postTargetId: Type.String(),
    publishJobId: Type.String(),
    channelAccountId: Type.String(),
    platform: Type.String(),
    text: Type.String(),
    settings: Type.Object({}, { additionalProperties: true }),
    state: lit(TARGET_STATES),
    stateReason: Nullable(Type.String()),
    scheduledAt: Nullable(Type.String()),
    dueAt: Nullable(
      Type.String({
        description:
          'When it was meant to publish (its schedule, or when it was queued); the lateness limit counts from it. Null while a draft.',
      }),
    ),
    nextAttemptAt: Nullable(Type.String()),
    attempts: Type.Integer(),
    lastError: Nullable(TargetErrorT),
    providerPostId: Nullable(Type.String()),
    providerUrl: Nullable(Type.String()),
    publishedAt: Nullable(Type.String()),
    firstComment: Nullable(
      Type.Object(
        {
          content: Type.String(),
          delayMs: Type.Integer(),
          state: Type.String({
            description: 'waiting, pending, posting, posted, failed, needs_attention, cancelled',
          }),
          providerCommentId: Nullable(Type.String()),
          error: Nullable(TargetErrorT),
        },
        { additionalProperties: false },
      ),
    ),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'PublishTarget', additionalProperties: false },
);

const ApprovalSchema = Type.Object(
  {
    state: lit(['pending', 'approved', 'rejected']),
    requestedBy: Type.String({ description: 'The submitter: a user id (dashboard) or the API key / OAuth token subject.' }),
    requestedAt: DateTime(),
    note: Nullable(Type.String()),
    scheduleAt: Nullable(DateTime('The time the submitter asked for; null: publish as soon as approved.')),
    decidedBy: Nullable(Type.String()),
    decidedAt: Nullable(DateTime()),
    reason: Nullable(Type.String({ description: 'Why it was rejected.' })),
  },
  {
    $id: 'PublishJobApproval',
    additionalProperties: false,
    description:
      'The approval of a job a member submitted (POST /v1/publish/jobs/{id}/submit): pending while its targets are pending_approval, approved (they were scheduled or queued) or rejected (back to draft). Null when none was asked.',
  },
);

export const PublishJob = Type.Object(
  {
    publishJobId: Type.String(),
    organizationId: Type.String(),
    brandId: Type.String(),
    productId: Nullable(Type.String()),
    profileId: Nullable(Type.String()),
    title: Nullable(Type.String()),
    text: Type.String(),
    media: Type.Array(Type.Object({}, { additionalProperties: true })),
    status: lit(JOB_STATUSES),
    scheduledAt: Nullable(Type.String()),
    runAfter: Nullable(Type.String()),
    idempotencyKey: Nullable(Type.String()),
    cancelReason: Nullable(Type.String()),
    approval: Nullable(ApprovalSchema),
    maxLatenessMinutes: Nullable(
      Type.Integer({ description: 'The lateness limit in minutes (null: none); past it a target is `missed` instead of published.' }),
    ),
    targetCount: Type.Integer(),
    targets: Type.Array(PublishTarget),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  { $id: 'PublishJob', additionalProperties: false },
);

export const PublishJobCreated = Type.Object(
  {
    ...PublishJob.properties,
    warnings: Type.Array(PlanIssue, {
      description: 'The non-blocking issues of the plan (severity warning), as the preview and the dry run list them.',
    }),
  },
  {
    $id: 'PublishJobCreated',
    additionalProperties: false,
    description: 'The job just created (201), with the warnings of its plan. A replay of the idempotencyKey answers the PublishJob (200).',
  },
);

export const DryRunAnswer = Type.Object(
  {
    mode: Type.Literal('dry_run'),
    preview: PlanPreview,
    summary: Type.Object(
      {
        jobCount: Type.Integer(),
        targetCount: Type.Integer(),
        initialState: Type.String(),
        scheduledAt: Nullable(Type.String()),
        firstAttemptAt: Nullable(Type.String()),
        maxLatenessMinutes: Nullable(Type.Integer()),
        targets: Type.Array(
          Type.Object(
            {
              channelAccountId: Type.String(),
              platform: Type.String(),
              state: Type.String(),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'PublishJobDryRun', additionalProperties: false },
);

export const JobListQuery = Type.Object(
  {
    brandId: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(lit(JOB_STATUSES)),
    from: Type.Optional(DateTime('Jobs scheduled (or created, when unscheduled) at or after this time.')),
    to: Type.Optional(DateTime('... and before this time.')),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);

export const JobParams = Type.Object({ publishJobId: IdOf('job') }, { additionalProperties: false });
export const EnqueueBody = Type.Object({}, { $id: 'PublishJobEnqueueRequest', additionalProperties: false });
export const ScheduleBody = Type.Object(
  { scheduleAt: DateTime('Must be in the future.') },
  { $id: 'PublishJobScheduleRequest', additionalProperties: false },
);
export const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
  { $id: 'PublishJobCancelRequest', additionalProperties: false },
);

export const JobList = ListOf(PublishJob, undefined, 'PublishJobList');

export const UrlReconciliationBody = Type.Object(
  {
    publishJobId: Type.Optional(Type.String({ minLength: 1 })),
    postTargetIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 })),
    dryRun: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: 'UrlReconciliationRequest', additionalProperties: false },
);

export const UrlReconciliationAnswer = Type.Object(
  {
    mode: lit(['dry_run', 'reconciled']),
    checkedCount: Type.Integer(),
    updatedCount: Type.Integer(),
    targets: Type.Array(
      Type.Object(
        {
          postTargetId: Type.String(),
          publishJobId: Type.String(),
          channelAccountId: Type.String(),
          platform: Type.String(),
          providerPostId: Type.String(),
          providerUrl: Nullable(Type.String()),
          result: lit(['would_fetch', 'updated', 'not_available', 'failed']),
          error: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'UrlReconciliationAnswer', additionalProperties: false },
);

export const SlotQuery = Type.Object(
  {
    brandId: Type.String({ minLength: 1 }),
    channelAccountId: Type.Optional(Type.String({ minLength: 1 })),
    platform: Type.Optional(PlatformT),
    profileId: Type.Optional(Type.String({ minLength: 1 })),
    from: Type.Optional(DateTime('Earliest time to consider; default now.')),
  },
  { additionalProperties: false },
);

export const PublishSlot = Type.Object(
  {
    mode: Type.Literal('preview'),
    organizationId: Type.String(),
    recommendation: Nullable(Type.Object({ scheduleAt: DateTime() }, { additionalProperties: true })),
    checkedSlotCount: Type.Integer({ minimum: 0 }),
    policy: Type.Object({}, { additionalProperties: true }),
    candidates: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    conflicts: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  },
  { $id: 'PublishSlot', additionalProperties: false },
);

export const ReconcileAnswer = Type.Object(
  {
    requeuedCount: Type.Integer(),
    publishedCount: Type.Integer({
      description:
        'targets stuck in publishing whose post the platform has, or whose worker noted the post and stopped before writing the outcome: published',
    }),
    failedCount: Type.Integer({
      description:
        "targets stuck in publishing that the account's posts on the platform show never landed, with their attempts spent: failed",
    }),
    retriedCount: Type.Integer({
      description:
        "targets stuck in publishing that the account's posts show never landed, within their lateness limit and attempt budget: queued again",
    }),
    missedCount: Type.Integer({
      description: "targets stuck in publishing that never landed and are past their job's lateness limit: missed",
    }),
    flaggedCount: Type.Integer({ description: 'targets stuck in publishing whose outcome the platform cannot tell: needs_attention' }),
    lookupsDeferredCount: Type.Integer({
      description:
        'targets stuck in publishing whose lookup failed for a passing reason (a timeout, a rate limit, a 5xx): left for the next sweep, for up to 15 minutes past their lease',
    }),
    pollsRequeuedCount: Type.Integer(),
    commentsFlaggedCount: Type.Integer(),
    commentsRequeuedCount: Type.Integer(),
  },
  { $id: 'PublishQueueReconcileAnswer', additionalProperties: false },
);

export type AgentPublishRequestT = Static<typeof AgentPublishRequest>;
export type AgentPlanT = Static<typeof AgentPlan>;
export type PublishJobT = Static<typeof PublishJob>;
export type PublishTargetT = Static<typeof PublishTarget>;
export type JobListQueryT = Static<typeof JobListQuery>;
export type SlotQueryT = Static<typeof SlotQuery>;
export type UrlReconciliationBodyT = Static<typeof UrlReconciliationBody>;
