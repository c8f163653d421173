/**
 * The remote MCP endpoint's authorization: OAuth apps registered by clients themselves (RFC 7591 dynamic
 * registration; public clients with no secret and no organization until an admin consents), and the
 * resource (RFC 8707) each code and token is bound to.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table oauth_apps alter column organization_id drop not null`.execute(db);
  // dashboard: registered by an admin of organization_id (confidential, with a secret); dynamic: self-registered public client
  await db.schema
    .alterTable('oauth_apps')
    .addColumn('registration', 'text', (c) => c.notNull().defaultTo('dashboard'))
    .execute();
  await db.schema.alterTable('oauth_apps').addColumn('registered_from', 'text').execute();
  await sql`create index oauth_apps_dynamic_idx on oauth_apps (registration, created_at)`.execute(db);
  await db.schema.alterTable('oauth_codes').addColumn('resource', 'text').execute();
  await db.schema.alterTable('oauth_tokens').addColumn('resource', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_tokens').dropColumn('resource').execute();
  await db.schema.alterTable('oauth_codes').dropColumn('resource').execute();
  await sql`drop index if exists oauth_apps_dynamic_idx`.execute(db);
  await db.schema.alterTable('oauth_apps').dropColumn('registered_from').execute();
  await db.schema.alterTable('oauth_apps').dropColumn('registration').execute();
}
