import type { ColumnType } from 'kysely';

type Ts = ColumnType<Date, Date | string, Date | string>;

export interface AnalyticsSnapshotsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  channel_account_id: string;
  platform: string;
  post_target_id: string | null;
  provider_post_id: string;
  captured_at: Ts;
  /** {name: number|null}; null = the platform did not report the metric */
  metrics: ColumnType<Record<string, number | null>, string, string>;
  /** {metricNames, apiVersion} */
  source: ColumnType<{ metricNames: string[]; apiVersion: string }, string, string>;
  created_at: Ts;
}

export interface AnalyticsTables {
  analytics_snapshots: AnalyticsSnapshotsTable;
}
