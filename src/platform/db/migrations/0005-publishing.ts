/**
 * Publish jobs and their targets (one per channel). The target row is the truth about what happened;
 * pg-boss jobs only wake the worker and carry the target's version, so a stale job (after a reschedule
 * or cancel) is recognised and skipped. Indexes serve the worker's due scans, the reconciliation sweep,
 * slot conflict checks and the job list.
 */
import { type Kysely, sql } from 'kysely';
import { brandRow, cascadeTo, idKey, organizationIndex, required, timestampsNow } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publish_jobs')
    .$call(brandRow)
    .addColumn('product_id', 'text')
    .addColumn('profile_id', 'text')
    .addColumn('title', 'text')
    .addColumn('text', 'text', required)
    .addColumn('media', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('status', 'text', required)
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('scheduled_at', 'timestamptz')
    .addColumn('run_after', 'timestamptz')
    .addColumn('cancel_reason', 'text')
    .$call(timestampsNow)
    .execute();
  await sql`create unique index publish_jobs_org_idem_idx on publish_jobs (organization_id, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
  await organizationIndex(db, 'publish_jobs', 'publish_jobs_org_id_idx');
  await sql`create index publish_jobs_org_brand_idx on publish_jobs (organization_id, brand_id, id)`.execute(db);

  await db.schema
    .createTable('publish_targets')
    .$call(idKey)
    .addColumn('organization_id', 'text', required)
    .addColumn('job_id', 'text', cascadeTo('publish_jobs'))
    .addColumn('brand_id', 'text', required)
    .addColumn('channel_account_id', 'text', required)
    .addColumn('platform', 'text', required)
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('text', 'text', required)
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('state', 'text', required)
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('scheduled_at', 'timestamptz')
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'timestamptz')
    .addColumn('poll_token', 'text')
    .addColumn('last_error', 'jsonb')
    .addColumn('state_reason', 'text')
    .addColumn('provider_post_id', 'text')
    .addColumn('provider_url', 'text')
    .addColumn('published_at', 'timestamptz')
    .addColumn('first_comment', 'jsonb')
    .addColumn('first_comment_state', 'text')
    .addColumn('first_comment_id', 'text')
    .addColumn('first_comment_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_comment_error', 'jsonb')
    .$call(timestampsNow)
    .execute();
  await sql`create index publish_targets_job_idx on publish_targets (job_id, position)`.execute(db);
  await sql`create index publish_targets_due_idx on publish_targets (state, next_attempt_at) where state in ('scheduled','queued','publishing','processing')`.execute(
    db,
  );
  await sql`create index publish_targets_channel_idx on publish_targets (organization_id, channel_account_id, scheduled_at)`.execute(db);
  await sql`create index publish_targets_published_idx on publish_targets (organization_id, job_id) where state = 'published' and provider_url is null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('publish_targets').execute();
  await db.schema.dropTable('publish_jobs').execute();
}
