/** Kysely table types owned by automations. */
import type { ColumnType } from 'kysely';
import type { Json } from '../../platform/db/schema.js';

export interface AutomationSourcesTable {
  id: string;
  organization_id: string;
  brand_id: string;
  kind: string;
  name: string;
  enabled: boolean;
  config: Json<Record<string, unknown>>;
  schedule: ColumnType<{ cron: string; timezone: string } | null, string | null, string | null>;
  /** kind-specific memory: feed validators (etag, last-modified), rotation position, first-run flag */
  state: ColumnType<Record<string, unknown>, string | undefined, string>;
  last_run_at: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface AutomationRunOutput {
  publishJobIds: string[];
  publishBatchIds: string[];
  itemsSeen: number;
  itemsCreated: number;
  items?: Array<Record<string, unknown>>;
}

export interface AutomationRunsTable {
  id: string;
  organization_id: string;
  source_id: string;
  status: string;
  trigger: string;
  dry_run: boolean;
  tick_key: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  error: ColumnType<{ class: string; message: string } | null, string | null, string | null>;
  output: Json<AutomationRunOutput>;
  created_at: Date;
  updated_at: Date;
}

interface AutomationSeenItemsTable {
  source_id: string;
  item_key: string;
  created_at: Date;
}

export interface AutomationTables {
  automation_sources: AutomationSourcesTable;
  automation_runs: AutomationRunsTable;
  automation_seen_items: AutomationSeenItemsTable;
}
