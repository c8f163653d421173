/**
 * Stored batch previews (a commit may name one and persist exactly its schedule), the per-job batch
 * events an endpoint opts in to (`events.audience`, `webhook_endpoints.batch_job_events`), and sign-in
 * through an OpenID Connect provider: pending logins, the provider identities linked to users, and the
 * email domains whose people an organization lets join on their first sign-in.
 */
import { type Kysely, sql } from 'kysely';
import { brandRow, cascadeTo, createdAt, organizationIndex, organizationRef, required, singleUse } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('publish_batch_previews')
    .$call(brandRow)
    .addColumn('request_hash', 'text', required)
    .addColumn('from_at', 'timestamptz', required)
    .addColumn('schedule', 'jsonb', required)
    .addColumn('expires_at', 'timestamptz', required)
    .$call(createdAt)
    .execute();
  await organizationIndex(db, 'publish_batch_previews', 'publish_batch_previews_org_idx');
  await sql`create index publish_batch_previews_expiry_idx on publish_batch_previews (expires_at)`.execute(db);

  await sql`alter table events add column audience text`.execute(db);
  await sql`alter table webhook_endpoints add column batch_job_events boolean not null default false`.execute(db);

  await db.schema
    .createTable('identity_provider_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('binding_hash', 'text', required)
    .addColumn('origin', 'text', required)
    .addColumn('code_verifier', 'text', required)
    .addColumn('nonce', 'text', required)
    .addColumn('redirect_uri', 'text', required)
    .addColumn('return_to', 'text')
    .$call(singleUse)
    .$call(createdAt)
    .execute();
  await sql`create index identity_provider_logins_expiry_idx on identity_provider_logins (expires_at)`.execute(db);
  await db.schema
    .createTable('identity_provider_links')
    .addColumn('issuer', 'text', required)
    .addColumn('subject', 'text', required)
    .addColumn('user_id', 'text', cascadeTo('users'))
    .addColumn('email', 'text', required)
    .$call(createdAt)
    .addColumn('last_sign_in_at', 'timestamptz', required)
    .addPrimaryKeyConstraint('identity_provider_links_pk', ['issuer', 'subject'])
    .execute();
  await db.schema
    .createTable('identity_provider_join_domains')
    .addColumn('email_domain', 'text', (c) => c.primaryKey())
    .$call(organizationRef)
    .addColumn('role', 'text', required)
    .$call(createdAt)
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
