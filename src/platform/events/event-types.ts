import type { ColumnType } from 'kysely';

/** The event catalog (ROUTES.md, "Webhook events"): every `type` an event row may carry. */
export const EVENT_TYPES = [
  'publish_job.created',
  'publish_job.scheduled',
  'publish_job.completed',
  'publish_job.cancelled',
  'publish_job.approval_requested',
  'publish_job.approved',
  'publish_job.rejected',
  'publish_target.published',
  'publish_target.failed',
  'publish_target.needs_attention',
  'publish_target.missed',
  'publish_batch.committed',
  'publish_batch.completed',
  'channel_account.connected',
  'channel_account.refresh_needed',
  'channel_account.reconnect_required',
  'channel_account.disconnected',
  'media.ready',
  'media.deleted',
  'social_comment.received',
  'social_comment.replied',
  'automation_run.succeeded',
  'automation_run.failed',
  'webhook_endpoint.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

interface EventsTable {
  /** evt_<ULID>; also the `webhook-id` of every delivery of this event */
  id: string;
  organization_id: string;
  type: string;
  /** the resource as the API answers it */
  data: unknown;
  sequence_key: string | null;
  sequence: number | null;
  created_at: Date;
  fanned_out_at: Date | null;
  /** null: every endpoint subscribed to the type; 'batch_job_events': only endpoints that opted in (see EventAudience) */
  audience: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * Who an event is for besides its type's subscribers. `batch_job_events`: a `publish_job.created` of a
 * job written by a batch commit, delivered only to endpoints with `batchJobEvents` on.
 */
export type EventAudience = 'batch_job_events';

export interface EventTables {
  events: EventsTable;
}
