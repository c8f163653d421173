/**
 * Social comments synced from the platforms (one row per (channel, providerCommentId)) and the replies
 * the service posted to them (one row per reply request; the Idempotency-Key makes a retried request
 * find its first attempt instead of posting again).
 */
import { type Kysely, sql } from 'kysely';
import { cascadeTo, organizationIndex, organizationRow, required, timestamps } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('social_comments')
    .$call(organizationRow)
    .addColumn('brand_id', 'text')
    .addColumn('channel_account_id', 'text', required)
    .addColumn('platform', 'text', required)
    .addColumn('post_target_id', 'text')
    .addColumn('provider_post_id', 'text', required)
    .addColumn('provider_comment_id', 'text', required)
    .addColumn('parent_provider_comment_id', 'text')
    .addColumn('body', 'text', required)
    .addColumn('author_name', 'text')
    .addColumn('author_handle', 'text')
    .addColumn('permalink_url', 'text')
    .addColumn('provider_created_at', 'timestamptz')
    .addColumn('own', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('hidden', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', required)
    .addColumn('reply_status', 'text', required)
    .addColumn('metrics', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('draft', 'jsonb')
    .addColumn('last_synced_at', 'timestamptz', required)
    .$call(timestamps)
    .execute();
  await sql`create unique index social_comments_channel_provider_uq on social_comments (channel_account_id, provider_comment_id)`.execute(
    db,
  );
  await organizationIndex(db, 'social_comments', 'social_comments_org_idx');
  await sql`create index social_comments_post_idx on social_comments (channel_account_id, provider_post_id)`.execute(db);

  await db.schema
    .createTable('social_comment_replies')
    .$call(organizationRow)
    .addColumn('social_comment_id', 'text', cascadeTo('social_comments'))
    .addColumn('idempotency_key', 'text')
    .addColumn('body', 'text', required)
    .addColumn('state', 'text', required)
    .addColumn('provider_comment_id', 'text')
    .addColumn('error', 'jsonb')
    .$call(timestamps)
    .execute();
  await sql`create unique index social_comment_replies_idem_uq on social_comment_replies (social_comment_id, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
}
