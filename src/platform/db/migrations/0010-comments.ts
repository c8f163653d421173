/**
 * Social comments synced from the platforms (one row per (channel, providerCommentId)) and the replies
 * the service posted to them (one row per reply request; the Idempotency-Key makes a retried request
 * find its first attempt instead of posting again).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('social_comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text')
    .addColumn('channel_account_id', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('post_target_id', 'text')
    .addColumn('provider_post_id', 'text', (c) => c.notNull())
    .addColumn('provider_comment_id', 'text', (c) => c.notNull())
    .addColumn('parent_provider_comment_id', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('author_name', 'text')
    .addColumn('author_handle', 'text')
    .addColumn('permalink_url', 'text')
    .addColumn('provider_created_at', 'timestamptz')
    .addColumn('own', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('hidden', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reply_status', 'text', (c) => c.notNull())
    .addColumn('metrics', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('draft', 'jsonb')
    .addColumn('last_synced_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index social_comments_channel_provider_uq on social_comments (channel_account_id, provider_comment_id)`.execute(
    db,
  );
  await sql`create index social_comments_org_idx on social_comments (organization_id, id)`.execute(db);
  await sql`create index social_comments_post_idx on social_comments (channel_account_id, provider_post_id)`.execute(db);

  await db.schema
    .createTable('social_comment_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('social_comment_id', 'text', (c) => c.notNull().references('social_comments.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('provider_comment_id', 'text')
    .addColumn('error', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create unique index social_comment_replies_idem_uq on social_comment_replies (social_comment_id, idempotency_key) where idempotency_key is not null`.execute(
    db,
  );
}
