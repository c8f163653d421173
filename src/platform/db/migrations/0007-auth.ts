/**
 * Sign-in and the OAuth provider: dashboard sessions gain an idle expiry (expires_at stays the absolute
 * one), single-use browser exchange codes, OAuth apps, grants (authorizations), codes and tokens.
 * Every secret is stored as a sha256 digest.
 */
import { type Kysely, sql } from 'kysely';
import {
  cascadeTo,
  createdAtNow,
  idKey,
  organizationIndex,
  organizationRef,
  organizationRow,
  required,
  singleUse,
  timestampsNow,
} from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('auth_sessions').addColumn('idle_expires_at', 'timestamptz').execute();
  await db.schema.alterTable('auth_sessions').addColumn('last_seen_at', 'timestamptz').execute();

  await db.schema
    .createTable('auth_exchange_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('nonce_hash', 'text', required)
    .addColumn('binding_hash', 'text', required)
    .addColumn('origin', 'text', required)
    .$call(organizationRef)
    .addColumn('user_id', 'text', cascadeTo('users'))
    .$call(singleUse)
    .$call(createdAtNow)
    .execute();

  await db.schema
    .createTable('oauth_apps')
    .$call(organizationRow)
    .addColumn('name', 'text', required)
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('client_secret_hash', 'text')
    .addColumn('client_secret_ref', 'text')
    .addColumn('redirect_uris', sql`text[]`, required)
    .addColumn('scopes', sql`text[]`, required)
    .$call(timestampsNow)
    .addColumn('deleted_at', 'timestamptz')
    .execute();
  await organizationIndex(db, 'oauth_apps', 'oauth_apps_org_idx');

  await db.schema
    .createTable('oauth_authorizations')
    .$call(organizationRow)
    .addColumn('oauth_app_id', 'text', cascadeTo('oauth_apps'))
    .addColumn('user_id', 'text', cascadeTo('users'))
    .addColumn('scopes', sql`text[]`, required)
    .$call(createdAtNow)
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await organizationIndex(db, 'oauth_authorizations', 'oauth_authorizations_org_idx');

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('authorization_id', 'text', cascadeTo('oauth_authorizations'))
    .addColumn('redirect_uri', 'text', required)
    .addColumn('code_challenge', 'text', required)
    .addColumn('scopes', sql`text[]`, required)
    .$call(singleUse)
    .$call(createdAtNow)
    .execute();

  await db.schema
    .createTable('oauth_tokens')
    .$call(idKey)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', required)
    .addColumn('authorization_id', 'text', cascadeTo('oauth_authorizations'))
    .addColumn('family_id', 'text', required)
    .addColumn('code_hash', 'text')
    .addColumn('scopes', sql`text[]`, required)
    .$call(singleUse)
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('replaced_by_pair', 'text')
    .$call(createdAtNow)
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
