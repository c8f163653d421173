/**
 * Stored batch previews (a commit may name one and persist exactly its schedule), the per-job batch
 * events an endpoint opts in to (`events.audience`, `webhook_endpoints.batch_job_events`), and sign-in
 * through an OpenID Connect provider: pending logins, the provider identities linked to users, and the
 * email domains whose people an organization lets join on their first sign-in.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publish_batch_previews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('from_at', 'timestamptz', (c) => c.notNull())
    .addColumn('schedule', 'jsonb', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index publish_batch_previews_org_idx on publish_batch_previews (organization_id, id)`.execute(db);
  await sql`create index publish_batch_previews_expiry_idx on publish_batch_previews (expires_at)`.execute(db);

  await sql`alter table events add column audience text`.execute(db);
  await sql`alter table webhook_endpoints add column batch_job_events boolean not null default false`.execute(db);

  await db.schema
    .createTable('identity_provider_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('binding_hash', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index identity_provider_logins_expiry_idx on identity_provider_logins (expires_at)`.execute(db);
  await db.schema
    .createTable('identity_provider_links')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('identity_provider_links_pk', ['issuer', 'subject'])
    .execute();
  await db.schema
    .createTable('identity_provider_join_domains')
    .addColumn('email_domain', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('identity_provider_join_domains').execute();
  await db.schema.dropTable('identity_provider_links').execute();
  await db.schema.dropTable('identity_provider_logins').execute();
  await sql`alter table webhook_endpoints drop column batch_job_events`.execute(db);
  await sql`alter table events drop column audience`.execute(db);
  await db.schema.dropTable('publish_batch_previews').execute();
}
