/** Automation sources and runs (ROUTES.md, "Automation sources"): request and response shapes. */
import { type Static, Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, Timestamp } from '../../http/shared-schemas.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const SOURCE_ID_PREFIX = 'asrc';
export const RUN_ID_PREFIX = 'arun';
const SourceId = Type.String({ pattern: `^${SOURCE_ID_PREFIX}_${ULID}$`, description: 'asrc_<ULID>' });
const RunId = Type.String({ pattern: `^${RUN_ID_PREFIX}_${ULID}$`, description: 'arun_<ULID>' });

const SOURCE_KINDS = ['rss_feed', 'product_rotation', 'external'] as const;
const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
const RUN_TRIGGERS = ['manual', 'schedule', 'api'] as const;
const PUBLISH_MODES = ['draft', 'schedule', 'publish'] as const;

const Template = Type.String({ minLength: 1, maxLength: 5000, description: 'placeholders {{title}}, {{link}}, {{summary}}' });
const Target = Type.Object(
  { platform: Type.String({ minLength: 1, maxLength: 64 }), channelAccountId: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

const RssFeedConfig = Type.Object(
  {
    feedUrl: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://', description: 'http(s) URL of an RSS 2.0 or Atom feed' }),
    profileId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    targets: Type.Optional(Type.Array(Target, { minItems: 1, maxItems: 20 })),
    textTemplate: Type.Optional(Template),
    mode: Type.Optional(
      Type.Union(
        PUBLISH_MODES.map((m) => Type.Literal(m)),
        { description: 'default draft' },
      ),
    ),
    maxItemsPerRun: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'default 5' })),
    backfill: Type.Optional(
      Type.String({ pattern: '^(none|latest:([1-9]|[1-4][0-9]|50))$', description: 'first run: none (default) or latest:N (N 1-50)' }),
    ),
  },
  { additionalProperties: false },
);

const ProductRotationConfig = Type.Object(
  {
    productIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 500, uniqueItems: true })),
    profileId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    itemsPerRun: Type.Integer({ minimum: 1, maximum: 50 }),
    textTemplate: Template,
    batchPolicy: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);

const ExternalConfig = Type.Object({}, { additionalProperties: true, maxProperties: 50 });

export const CONFIG_SCHEMAS = { rss_feed: RssFeedConfig, product_rotation: ProductRotationConfig, external: ExternalConfig } as const;

const Schedule = Nullable(
  Type.Object(
    {
      cron: Type.String({ minLength: 9, maxLength: 120, description: 'five-field cron expression' }),
      timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone' }),
    },
    { additionalProperties: false },
  ),
);

const common = {
  brandId: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
  schedule: Type.Optional(Schedule),
};

export const AutomationSourceCreateRequest = Type.Union(
  [
    Type.Object({ ...common, kind: Type.Literal('rss_feed'), config: RssFeedConfig }, { additionalProperties: false }),
    Type.Object({ ...common, kind: Type.Literal('product_rotation'), config: ProductRotationConfig }, { additionalProperties: false }),
    Type.Object({ ...common, kind: Type.Literal('external'), config: Type.Optional(ExternalConfig) }, { additionalProperties: false }),
  ],
  { $id: 'AutomationSourceCreateRequest' },
);

export const AutomationSourceUpdateRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    enabled: Type.Optional(Type.Boolean()),
    config: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'merged into the current config, then validated for the kind' }),
    ),
    schedule: Type.Optional(Schedule),
  },
  { $id: 'AutomationSourceUpdateRequest', additionalProperties: false, minProperties: 1 },
);

export const AutomationSource = Type.Object(
  {
    automationSourceId: Type.String(),
    organizationId: Type.String(),
    brandId: Type.String(),
    kind: Type.Union(SOURCE_KINDS.map((k) => Type.Literal(k))),
    name: Type.String(),
    enabled: Type.Boolean(),
    config: Type.Object({}, { additionalProperties: true }),
    schedule: Schedule,
    lastRunAt: Nullable(Timestamp()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'AutomationSource', additionalProperties: false },
);

export const AutomationSourceList = ListOf(Type.Ref('AutomationSource'), undefined, 'AutomationSourceList');

export const AutomationSourceQuery = Type.Object(
  {
    brandId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    kind: Type.Optional(Type.Union(SOURCE_KINDS.map((k) => Type.Literal(k)))),
    enabled: Type.Optional(Type.Boolean()),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);

export const SourceParams = Type.Object({ automationSourceId: SourceId }, { additionalProperties: false });
export const RunParams = Type.Object({ automationRunId: RunId }, { additionalProperties: false });

const RunError = Type.Object(
  { class: Type.String({ minLength: 1, maxLength: 100 }), message: Type.String({ minLength: 1, maxLength: 2000 }) },
  { additionalProperties: false },
);

const RunOutput = Type.Object(
  {
    publishJobIds: Type.Array(Type.String()),
    publishBatchIds: Type.Array(Type.String()),
    itemsSeen: Type.Integer({ minimum: 0 }),
    itemsCreated: Type.Integer({ minimum: 0 }),
    items: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'per-item outcome' })),
  },
  { additionalProperties: false },
);

export const AutomationRun = Type.Object(
  {
    automationRunId: Type.String(),
    automationSourceId: Type.String(),
    status: Type.Union(RUN_STATUSES.map((s) => Type.Literal(s))),
    trigger: Type.Union(RUN_TRIGGERS.map((s) => Type.Literal(s))),
    dryRun: Type.Boolean(),
    startedAt: Nullable(Timestamp()),
    finishedAt: Nullable(Timestamp()),
    error: Nullable(RunError),
    output: RunOutput,
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'AutomationRun', additionalProperties: false },
);

export const AutomationRunList = ListOf(Type.Ref('AutomationRun'), undefined, 'AutomationRunList');

export const AutomationRunQuery = Type.Object(
  {
    automationSourceId: Type.Optional(SourceId),
    status: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)))),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);

export const AutomationRunCreateRequest = Type.Object(
  {
    automationSourceId: Type.String({ minLength: 1, maxLength: 64 }),
    trigger: Type.Optional(
      Type.Union(
        RUN_TRIGGERS.map((s) => Type.Literal(s)),
        { description: 'default manual' },
      ),
    ),
    dryRun: Type.Optional(
      Type.Boolean({ default: true, description: 'default true: compute what would be created and persist nothing (no run is stored)' }),
    ),
  },
  { $id: 'AutomationRunCreateRequest', additionalProperties: false },
);

export const AutomationRunRecordRequest = Type.Object(
  {
    // every state is accepted here; the run's state machine refuses the unreachable ones (queued always) with 409
    status: Type.Union(
      RUN_STATUSES.map((s) => Type.Literal(s)),
      {
        description: 'The state to move to; one not reachable from the current state answers 409 automation_run_invalid_transition.',
      },
    ),
    error: Type.Optional(RunError),
    output: Type.Optional(
      Type.Object(
        {
          publishJobIds: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 500 })),
          publishBatchIds: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 500 })),
          itemsSeen: Type.Optional(Type.Integer({ minimum: 0 })),
          itemsCreated: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'AutomationRunRecordRequest', additionalProperties: false },
);

export const SchedulerEnqueueAnswer = Type.Object(
  { enqueued: Type.Integer({ minimum: 0 }), automationRunIds: Type.Array(Type.String()) },
  { $id: 'AutomationSchedulerEnqueueAnswer', additionalProperties: false },
);

export type SourceKind = (typeof SOURCE_KINDS)[number];
export type RunStatus = (typeof RUN_STATUSES)[number];
export type RunTrigger = (typeof RUN_TRIGGERS)[number];
export type AutomationSourceT = Static<typeof AutomationSource>;
export type AutomationRunT = Static<typeof AutomationRun>;
export type SourceCreateT = Static<typeof AutomationSourceCreateRequest>;
export type SourceUpdateT = Static<typeof AutomationSourceUpdateRequest>;
export type SourceQueryT = Static<typeof AutomationSourceQuery>;
export type RunQueryT = Static<typeof AutomationRunQuery>;
export type RunCreateT = Static<typeof AutomationRunCreateRequest>;
export type RunRecordT = Static<typeof AutomationRunRecordRequest>;
