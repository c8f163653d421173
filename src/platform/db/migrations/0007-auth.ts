/**
 * Sign-in and the OAuth provider: dashboard sessions gain an idle expiry (expires_at stays the absolute
 * one), single-use browser exchange codes, OAuth apps, grants (authorizations), codes and tokens.
 * Every secret is stored as a sha256 digest.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('auth_sessions').addColumn('idle_expires_at', 'timestamptz').execute();
  await db.schema.alterTable('auth_sessions').addColumn('last_seen_at', 'timestamptz').execute();

  await db.schema
    .createTable('auth_exchange_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('nonce_hash', 'text', (c) => c.notNull())
    .addColumn('binding_hash', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('oauth_apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('client_secret_hash', 'text')
    .addColumn('client_secret_ref', 'text')
    .addColumn('redirect_uris', sql`text[]`, (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await sql`create index oauth_apps_org_idx on oauth_apps (organization_id, id)`.execute(db);

  await db.schema
    .createTable('oauth_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('oauth_app_id', 'text', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await sql`create index oauth_authorizations_org_idx on oauth_authorizations (organization_id, id)`.execute(db);

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('authorization_id', 'text', (c) => c.notNull().references('oauth_authorizations.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('authorization_id', 'text', (c) => c.notNull().references('oauth_authorizations.id').onDelete('cascade'))
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text')
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('consumed_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('replaced_by_pair', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index oauth_tokens_family_idx on oauth_tokens (family_id)`.execute(db);
  await sql`create index oauth_tokens_authorization_idx on oauth_tokens (authorization_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['oauth_tokens', 'oauth_codes', 'oauth_authorizations', 'oauth_apps', 'auth_exchange_codes']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.alterTable('auth_sessions').dropColumn('last_seen_at').execute();
  await db.schema.alterTable('auth_sessions').dropColumn('idle_expires_at').execute();
}
