/**
 * Channel accounts, their encrypted provider tokens, OAuth connect states, and publishing profiles.
 * A channel is unique per (organization, platform, externalAccountId); disconnecting keeps the row in
 * state `deleted` so publish targets that point at it stay readable.
 */
import { type Kysely, sql } from 'kysely';
import {
  brandRow,
  cascadeTo,
  createdAtNow,
  optionalCascadeTo,
  organizationIndex,
  organizationRow,
  required,
  setNullTo,
  singleUse,
  timestampsNow,
} from './migration-helpers.js';

const STATES = `'not_connected','connecting','in_between_steps','connected','expiring','refresh_needed','reconnect_required','disabled','deleted'`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channel_accounts')
    .$call(organizationRow)
    .addColumn('brand_id', 'text', setNullTo('brands'))
    .addColumn('platform', 'text', required)
    .addColumn('external_account_id', 'text', required)
    .addColumn('display_name', 'text', required)
    .addColumn('handle', 'text')
    .addColumn('platform_app_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull().check(sql.raw(`state in (${STATES})`)))
    .addColumn('state_reason', 'text')
    .addColumn('scopes', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('access_token_ref', 'text')
    .addColumn('refresh_token_ref', 'text')
    .addColumn('token_expires_at', 'timestamptz')
    .addColumn('additional_settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('pending_choices', 'jsonb')
    .addColumn('refresh_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_refresh_at', 'timestamptz')
    .$call(timestampsNow)
    .addUniqueConstraint('channel_accounts_org_platform_ext_uq', ['organization_id', 'platform', 'external_account_id'])
    .execute();
  await organizationIndex(db, 'channel_accounts', 'channel_accounts_org_id_idx');
  await sql`create index channel_accounts_expiry_idx on channel_accounts (token_expires_at) where state in ('connected','expiring','refresh_needed')`.execute(
    db,
  );

  await db.schema
    .createTable('provider_token_secrets')
    .$call(organizationRow)
    .addColumn('channel_account_id', 'text', optionalCascadeTo('channel_accounts'))
    .addColumn('platform', 'text', required)
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access','refresh')`))
    .addColumn('ciphertext', 'text', required)
    .addColumn('expires_at', 'timestamptz')
    .$call(createdAtNow)
    .execute();
  await sql`create index provider_token_secrets_channel_idx on provider_token_secrets (channel_account_id)`.execute(db);

  await db.schema
    .createTable('channel_connect_states')
    .$call(organizationRow)
    .addColumn('brand_id', 'text', optionalCascadeTo('brands'))
    .addColumn('platform', 'text', required)
    .addColumn('secret_hash', 'text', required)
    .addColumn('return_url', 'text')
    .addColumn('redirect_uri', 'text', required)
    .addColumn('scopes', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('code_verifier', 'text')
    .$call(singleUse)
    .$call(createdAtNow)
    .execute();
  await sql`create index channel_connect_states_expires_idx on channel_connect_states (expires_at)`.execute(db);

  await db.schema
    .createTable('publishing_profiles')
    .$call(organizationRow)
    .addColumn('brand_id', 'text', cascadeTo('brands'))
    .addColumn('name', 'text', required)
    .addColumn('slug', 'text', required)
    .addColumn('description', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('schedule_settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('comment_settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .$call(timestampsNow)
    .addUniqueConstraint('publishing_profiles_brand_slug_uq', ['organization_id', 'brand_id', 'slug'])
    .execute();
  // one default profile per brand, enforced by the database as well as the service
  await sql`create unique index publishing_profiles_default_idx on publishing_profiles (brand_id) where is_default`.execute(db);

  await db.schema
    .createTable('publishing_profile_channels')
    .$call(brandRow)
    .addColumn('profile_id', 'text', cascadeTo('publishing_profiles'))
    .addColumn('channel_account_id', 'text', cascadeTo('channel_accounts'))
    .addColumn('platform', 'text', required)
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .$call(timestampsNow)
    .addUniqueConstraint('publishing_profile_channels_uq', ['profile_id', 'channel_account_id'])
    .execute();
  await sql`create index publishing_profile_channels_channel_idx on publishing_profile_channels (channel_account_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'publishing_profile_channels',
    'publishing_profiles',
    'channel_connect_states',
    'provider_token_secrets',
    'channel_accounts',
  ]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
