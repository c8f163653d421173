import { type Static, Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, Timestamp } from '../../http/shared-schemas.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const SNAPSHOT_ID_PREFIX = 'asn';

/** Platforms the sync request accepts (the spec's ProviderAnalyticsSyncRequest enum). */
export const ANALYTICS_PLATFORMS = ['x', 'youtube', 'facebook_page', 'pinterest'] as const;
export type AnalyticsPlatform = (typeof ANALYTICS_PLATFORMS)[number];

const Id = (prefix: string) => Type.String({ pattern: `^${prefix}_${ULID}$`, description: `${prefix}_<ULID>` });

export const AnalyticsSnapshot = Type.Object(
  {
    analyticsSnapshotId: Type.String(),
    organizationId: Type.String(),
    brandId: Type.String(),
    channelAccountId: Type.String(),
    platform: Type.String(),
    postTargetId: Nullable(Type.String()),
    providerPostId: Type.String(),
    capturedAt: Timestamp(),
    metrics: Type.Record(Type.String(), Nullable(Type.Number()), {
      description: 'Metric name to value; null when the platform did not report the metric (never 0 in its place).',
    }),
    source: Type.Object(
      {
        metricNames: Type.Array(Type.String(), { description: 'the platform metric names that were read' }),
        apiVersion: Type.String(),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'AnalyticsSnapshot', additionalProperties: false },
);
export type AnalyticsSnapshotT = Static<typeof AnalyticsSnapshot>;

export const AnalyticsSnapshotList = Type.Object(
  { ...ListOf(Type.Ref('AnalyticsSnapshot')).properties },
  { $id: 'AnalyticsSnapshotList', additionalProperties: false },
);

export const SnapshotListQuery = Type.Object(
  {
    brandId: Type.Optional(Id('brd')),
    channelAccountId: Type.Optional(Id('cha')),
    postTargetId: Type.Optional(Id('tgt')),
    platform: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    from: Type.Optional(Timestamp('captured at or after (inclusive)')),
    to: Type.Optional(Timestamp('captured before (exclusive)')),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type SnapshotListQueryT = Static<typeof SnapshotListQuery>;

export const ProviderAnalyticsSyncRequest = Type.Object(
  {
    organizationId: Type.String({ minLength: 1 }),
    brandId: Type.String({ minLength: 1 }),
    providerPostId: Type.String({ minLength: 1, maxLength: 200 }),
    channelAccountId: Type.String({ minLength: 1 }),
    platform: Type.Union(
      ANALYTICS_PLATFORMS.map((p) => Type.Literal(p)),
      { description: 'x, youtube, facebook_page or pinterest' },
    ),
    postTargetId: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    capturedAt: Type.Optional(Nullable(Timestamp('when the reading is recorded as taken (default now)'))),
    dryRun: Type.Optional(Type.Boolean({ default: true, description: 'true (default): read the metrics and answer without storing' })),
  },
  { $id: 'ProviderAnalyticsSyncRequest', additionalProperties: false },
);
export type ProviderAnalyticsSyncRequestT = Static<typeof ProviderAnalyticsSyncRequest>;

export const ProviderAnalyticsSyncResponse = Type.Object(
  {
    mode: Type.Union([Type.Literal('dry_run'), Type.Literal('stored')]),
    snapshot: Type.Ref('AnalyticsSnapshot'),
  },
  { $id: 'ProviderAnalyticsSyncResponse', additionalProperties: false },
);

export const ANALYTICS_SCHEMAS = [AnalyticsSnapshot, AnalyticsSnapshotList, ProviderAnalyticsSyncRequest, ProviderAnalyticsSyncResponse];
