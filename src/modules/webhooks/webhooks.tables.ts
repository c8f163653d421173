import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/schema.js';

export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  /** string[]; empty = every event type */
  event_types: ColumnType<string[], string, string>;
  enabled: boolean;
  /** also receive publish_job.created of the jobs a batch commit writes (events of audience batch_job_events) */
  batch_job_events: ColumnType<boolean, boolean | undefined, boolean>;
  disabled_reason: string | null;
  metadata: ColumnType<Record<string, string>, string, string>;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  /** first failure of the current unbroken run of failures (null after a success) */
  failing_since: ColumnType<Date | null, Date | string | null, Date | string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** pending | delivered | failed */
  status: string;
  attempt_count: number;
  next_attempt_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  /** its place in the queue: due since, or a retry's time; null when nothing is to be sent */
  claim_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  /**
   * the end of the lease of the worker that claimed it (or of a give-back's wait): not claimable before.
   * Not indexed, so a claim is a HOT update (migration 0029).
   */
  leased_until: ColumnType<Date | null, Date | string | null, Date | string | null>;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error_class: string | null;
  next_retry_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  created_at: Timestamp;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
