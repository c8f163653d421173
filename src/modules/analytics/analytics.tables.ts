/** Kysely table types owned by analytics. */
import type { ColumnType } from 'kysely';

export interface SnapshotSource {
  metricNames: string[];
  apiVersion: string;
}

export interface AnalyticsSnapshotsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  channel_account_id: string;
  platform: string;
  post_target_id: string | null;
  provider_post_id: string;
  captured_at: Date;
  metrics: ColumnType<Record<string, number | null>, string, never>;
  source: ColumnType<SnapshotSource, string, never>;
  /** api (POST /v1/analytics/sync) or schedule (the periodic job) */
  trigger: string;
  created_at: Date;
}

export interface AnalyticsTables {
  analytics_snapshots: AnalyticsSnapshotsTable;
}
