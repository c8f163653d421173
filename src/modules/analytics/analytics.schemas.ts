/** Analytics snapshots and provider analytics sync (spec "Analytics sync"; ROUTES.md "Analytics and engagement"). */
import { type Static, Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, Timestamp } from '../../http/shared-schemas.js';

export const SNAPSHOT_ID_PREFIX = 'asnap';
export const ANALYTICS_PLATFORMS = ['x', 'youtube', 'facebook_page', 'pinterest'] as const;
export type AnalyticsPlatform = (typeof ANALYTICS_PLATFORMS)[number];

const Id = Type.String({ minLength: 1, maxLength: 64 });
const AnalyticsPlatformSchema = Type.Union(
  ANALYTICS_PLATFORMS.map((p) => Type.Literal(p)),
  { description: 'platforms with analytics sync' },
);

export const AnalyticsSnapshot = Type.Object(
  {
    analyticsSnapshotId: Type.String({ description: 'asnap_<ULID>' }),
    organizationId: Type.String(),
    brandId: Type.String(),
    channelAccountId: Type.String(),
    platform: AnalyticsPlatformSchema,
    postTargetId: Nullable(Type.String()),
    providerPostId: Type.String(),
    capturedAt: Timestamp('when the numbers were read'),
    metrics: Type.Record(Type.String(), Nullable(Type.Number()), {
      description: 'normalized metric name -> value; null when the platform did not report the metric (never 0)',
    }),
    source: Type.Object(
      {
        metricNames: Type.Array(Type.String(), { description: "the platform's own metric names that were read" }),
        apiVersion: Type.String({ description: 'the platform API the numbers came from, e.g. x/2, youtube/v3' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'AnalyticsSnapshot', additionalProperties: false },
);
export type AnalyticsSnapshotT = Static<typeof AnalyticsSnapshot>;

export const AnalyticsSnapshotList = ListOf(
  Type.Ref('AnalyticsSnapshot'),
  'Analytics snapshots, newest capture first (then by id).',
  'AnalyticsSnapshotList',
);

export const AnalyticsSnapshotQuery = Type.Object(
  {
    brandId: Type.Optional(Id),
    channelAccountId: Type.Optional(Id),
    platform: Type.Optional(AnalyticsPlatformSchema),
    postTargetId: Type.Optional(Id),
    providerPostId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    from: Type.Optional(Timestamp('captured at or after (inclusive)')),
    to: Type.Optional(Timestamp('captured before (exclusive)')),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type AnalyticsSnapshotQueryT = Static<typeof AnalyticsSnapshotQuery>;

export const ProviderAnalyticsSyncRequest = Type.Object(
  {
    organizationId: Id,
    brandId: Id,
    providerPostId: Type.String({ minLength: 1, maxLength: 128 }),
    channelAccountId: Id,
    platform: AnalyticsPlatformSchema,
    postTargetId: Type.Optional(Nullable(Id)),
    capturedAt: Type.Optional(Nullable(Timestamp('recorded capture time; default now'))),
    dryRun: Type.Optional(Type.Boolean({ default: true, description: 'default true: read the metrics, store nothing' })),
  },
  { $id: 'ProviderAnalyticsSyncRequest', additionalProperties: false },
);
export type ProviderAnalyticsSyncRequestT = Static<typeof ProviderAnalyticsSyncRequest>;

export const ProviderAnalyticsSyncResponse = Type.Object(
  {
    mode: Type.Union([Type.Literal('dry_run'), Type.Literal('stored')]),
    snapshot: Type.Ref('AnalyticsSnapshot'),
  },
  {
    $id: 'ProviderAnalyticsSyncResponse',
    additionalProperties: false,
    description: 'dry_run: the snapshot that would be stored (not persisted); stored: the stored snapshot',
  },
);
