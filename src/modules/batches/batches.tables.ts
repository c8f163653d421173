import type { Json, Timestamp } from '../../platform/db/schema.js';

export interface PublishBatchesTable {
  id: string;
  organization_id: string;
  brand_id: string;
  source: string;
  idempotency_key: string | null;
  /** sha256 of the commit request, to tell a retry from a different request reusing the key */
  request_hash: string;
  freeze_horizon_minutes: number;
  schedule_policy: Json<Record<string, unknown>>;
  preview: Json<Record<string, unknown>>;
  item_count: number;
  target_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AssetsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  client_asset_id: string;
  product_id: string;
  title: string | null;
  product_url: string | null;
  text: string;
  media: Json<Record<string, unknown>[]>;
  media_library_item_ids: Json<string[]>;
  last_batch_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PublishBatchItemsTable {
  id: string;
  organization_id: string;
  batch_id: string;
  position: number;
  client_asset_id: string;
  asset_id: string;
  product_id: string;
  publish_job_id: string | null;
  created_at: Timestamp;
}

export interface PublishBatchTargetsTable {
  id: string;
  organization_id: string;
  batch_id: string;
  item_id: string;
  position: number;
  channel_account_id: string;
  platform: string;
  slot_id: string | null;
  scheduled_at: Date | null;
  jitter_seconds: number | null;
  /** the publish target made for it; null while unscheduled */
  post_target_id: string | null;
  created_at: Timestamp;
}

/** A preview's schedule, kept until `expires_at` so a commit may name it (`batchPreviewId`). */
export interface PublishBatchPreviewsTable {
  /** pbp_<26 hex>: content-addressed (organization, request, from and schedule) */
  id: string;
  organization_id: string;
  brand_id: string;
  /** sha256 of the previewed request's fields; a commit naming the preview must send the same */
  request_hash: string;
  from_at: Timestamp;
  /** {assignments, warnings} as the preview answered them (assignments without their comments): rows stored before 0028 */
  schedule: Json<Record<string, unknown>> | null;
  /** the same, packed (stored-schedule.ts): rows stored since 0028 */
  schedule_packed: Uint8Array | null;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface BatchTables {
  publish_batch_previews: PublishBatchPreviewsTable;
  publish_batches: PublishBatchesTable;
  assets: AssetsTable;
  publish_batch_items: PublishBatchItemsTable;
  publish_batch_targets: PublishBatchTargetsTable;
}
