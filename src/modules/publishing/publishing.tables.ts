/** Row types of the publishing tables (migration 0005-publishing). */
import type { ColumnType, Generated } from 'kysely';
import { everyColumn } from '../../platform/db/prepared.js';
import type { Json, Timestamp } from '../../platform/db/schema.js';

/** A media item as resolved when the job was created (library items keep their id for fresh URLs). */
export interface StoredMedia {
  mediaLibraryItemId: string | null;
  kind: 'image' | 'video' | 'gif';
  url: string;
  mimeType: string | null;
  bytes: number | null;
  durationSeconds: number | null;
  width: number | null;
  height: number | null;
  altText: string | null;
  metadata: Record<string, unknown>;
}

export interface TargetError {
  code: string;
  category: string;
  message: string;
  providerResponse: unknown;
  at: string;
}

/** The approval record of a job (publish_jobs.approval). */
export interface ApprovalRecord {
  state: 'pending' | 'approved' | 'rejected';
  /** who submitted it: a user id (dashboard) or an API key / OAuth token subject */
  requestedBy: string;
  requestedAt: string;
  note: string | null;
  /** the time the submitter asked for (null: publish when approved) */
  scheduleAt: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  /** the rejection's reason */
  reason: string | null;
}

interface PublishingSettingsTable {
  organization_id: string;
  members_publish_directly: ColumnType<boolean, boolean | undefined, boolean>;
  updated_by: string | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface PublishJobsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  product_id: string | null;
  profile_id: string | null;
  title: string | null;
  text: string;
  media: Json<StoredMedia[]>;
  status: string;
  idempotency_key: string | null;
  /** sha256 of the create request, to tell a retry from a different request reusing the key */
  request_hash: string | null;
  scheduled_at: Date | null;
  run_after: Date | null;
  cancel_reason: string | null;
  /** the approval record (null when none was asked); its state follows the targets' pending_approval */
  approval: ColumnType<ApprovalRecord | null, string | null | undefined, string | null>;
  /** a target found due later than this many minutes is not published (missed); null = no limit */
  max_lateness_minutes: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PublishTargetsTable {
  id: string;
  organization_id: string;
  job_id: string;
  brand_id: string;
  channel_account_id: string;
  platform: string;
  position: number;
  text: string;
  settings: Json<Record<string, unknown>>;
  state: string;
  /** bumped by every change that invalidates queued worker jobs (reschedule, cancel, claim) */
  version: Generated<number>;
  scheduled_at: Date | null;
  /** when it was meant to publish (its schedule, or when it was queued): lateness is measured from it */
  due_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** when the next attempt (or poll) may run; null when nothing is due */
  next_attempt_at: Date | null;
  attempts: Generated<number>;
  lease_until: Date | null;
  poll_token: string | null;
  last_error: Json<TargetError | null>;
  state_reason: string | null;
  provider_post_id: string | null;
  provider_url: string | null;
  published_at: Date | null;
  /**
   * A published outcome noted during a burst and not yet written in full (migration 0030): the platform's
   * post id and permalink, and when it answered. Null otherwise; the full outcome clears them.
   */
  posted_post_id: ColumnType<string | null, string | null | undefined, string | null>;
  posted_url: ColumnType<string | null, string | null | undefined, string | null>;
  posted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  first_comment: Json<{ content: string; delayMs: number } | null>;
  first_comment_state: string | null;
  first_comment_id: string | null;
  first_comment_attempts: Generated<number>;
  first_comment_error: Json<TargetError | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A target row's columns by name, for the engine's prepared statements that answer whole rows. */
export const PUBLISH_TARGET_COLUMNS = everyColumn<PublishTargetsTable>()(
  'id',
  'organization_id',
  'job_id',
  'brand_id',
  'channel_account_id',
  'platform',
  'position',
  'text',
  'settings',
  'state',
  'version',
  'scheduled_at',
  'due_at',
  'next_attempt_at',
  'attempts',
  'lease_until',
  'poll_token',
  'last_error',
  'state_reason',
  'provider_post_id',
  'provider_url',
  'published_at',
  'posted_post_id',
  'posted_url',
  'posted_at',
  'first_comment',
  'first_comment_state',
  'first_comment_id',
  'first_comment_attempts',
  'first_comment_error',
  'created_at',
  'updated_at',
);

export interface PublishingTables {
  publish_jobs: PublishJobsTable;
  publish_targets: PublishTargetsTable;
  publishing_settings: PublishingSettingsTable;
}
