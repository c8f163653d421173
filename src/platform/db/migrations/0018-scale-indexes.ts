/**
 * Indexes for a year of history (measured by `npm run bench:scale`, docs/operations.md "Cost as the
 * data grows"): each serves a list route or a worker scan that otherwise read the organization's whole
 * history (a walk of (organization_id, id) filtering every row, or a sequential scan).
 *
 * Plain CREATE INDEX (not CONCURRENTLY): migrations run in a transaction, on PGlite as on PostgreSQL.
 * On a large existing database each build holds its table's write lock for its duration (seconds per
 * million rows); run `service-api migrate` in a quiet moment.
 */
import { type Kysely, sql } from 'kysely';

const INDEXES: Array<[name: string, definition: string]> = [
  // GET /v1/publish/jobs?status= (newest first) and ?status=&from=&to=
  ['publish_jobs_org_status_idx', 'publish_jobs (organization_id, status, id)'],
  ['publish_jobs_org_status_time_idx', 'publish_jobs (organization_id, status, (coalesce(scheduled_at, created_at)))'],
  // the calendar: GET /v1/publish/jobs?brandId=&from=&to= (and ?from=&to= alone)
  ['publish_jobs_org_brand_time_idx', 'publish_jobs (organization_id, brand_id, (coalesce(scheduled_at, created_at)))'],
  ['publish_jobs_org_time_idx', 'publish_jobs (organization_id, (coalesce(scheduled_at, created_at)))'],
  // the posts of a time window: the batch planner's existing posts of its channels, the slot finder
  ['publish_targets_channel_time_idx', 'publish_targets (organization_id, channel_account_id, (coalesce(published_at, scheduled_at)))'],
  ['publish_targets_brand_time_idx', 'publish_targets (organization_id, brand_id, (coalesce(published_at, scheduled_at)))'],
  // the reconciliation sweep's first comments stuck in posting or never sent
  ['publish_targets_first_comment_idx', 'publish_targets (first_comment_state, updated_at) where first_comment_state is not null'],
  // GET /v1/social-comments?status= and ?brandId= (oldest first)
  ['social_comments_org_status_idx', 'social_comments (organization_id, status, id)'],
  ['social_comments_org_brand_idx', 'social_comments (organization_id, brand_id, id)'],
  // GET /v1/analytics/snapshots?from=&to=
  ['analytics_snapshots_org_captured_idx', 'analytics_snapshots (organization_id, captured_at)'],
  // an endpoint's delivery log by status; the sweep's overdue pending deliveries
  ['webhook_deliveries_endpoint_status_idx', 'webhook_deliveries (endpoint_id, status, id)'],
  ['webhook_deliveries_pending_idx', `webhook_deliveries (next_attempt_at) where status = 'pending'`],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, definition] of INDEXES) await sql.raw(`create index if not exists ${name} on ${definition}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of INDEXES) await sql.raw(`drop index if exists ${name}`).execute(db);
}
