import { type Kysely, sql } from 'kysely';
import {
  cascadeTo,
  createdAtNow,
  idKey,
  organizationRef,
  organizationRow,
  required,
  setNullTo,
  timestampsNow,
} from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('organizations').$call(idKey).addColumn('name', 'text', required).$call(timestampsNow).execute();

  await db.schema
    .createTable('users')
    .$call(idKey)
    .addColumn('email', 'text', required)
    .addColumn('password_hash', 'text')
    .addColumn('display_name', 'text')
    .addColumn('tier', 'text', (c) => c.notNull().defaultTo('basic').check(sql`tier in ('basic','pro','max')`))
    .$call(timestampsNow)
    .execute();
  await sql`create unique index users_email_lower_idx on users (lower(email))`.execute(db);

  await db.schema
    .createTable('memberships')
    .$call(organizationRef)
    .addColumn('user_id', 'text', cascadeTo('users'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('member','admin','owner')`))
    .$call(createdAtNow)
    .addPrimaryKeyConstraint('memberships_pk', ['organization_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .$call(organizationRow)
    .addColumn('name', 'text', required)
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', required)
    .addColumn('scopes', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_by_user_id', 'text', setNullTo('users'))
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .$call(createdAtNow)
    .execute();
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').columns(['organization_id', 'id']).execute();

  await db.schema
    .createTable('brands')
    .$call(organizationRow)
    .addColumn('name', 'text', required)
    .addColumn('slug', 'text', required)
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .$call(timestampsNow)
    .addUniqueConstraint('brands_org_slug_uq', ['organization_id', 'slug'])
    .execute();
  await db.schema.createIndex('brands_org_id_idx').on('brands').columns(['organization_id', 'id']).execute();

  await db.schema
    .createTable('brand_products')
    .$call(organizationRow)
    .addColumn('brand_id', 'text', cascadeTo('brands'))
    .addColumn('name', 'text', required)
    .addColumn('slug', 'text', required)
    .addColumn('product_url', 'text')
    .addColumn('store_product_id', 'text')
    .$call(timestampsNow)
    .addUniqueConstraint('brand_products_brand_slug_uq', ['brand_id', 'slug'])
    .execute();
  await db.schema.createIndex('brand_products_org_brand_idx').on('brand_products').columns(['organization_id', 'brand_id']).execute();

  await db.schema
    .createTable('worker_heartbeats')
    .addColumn('worker_id', 'text', (c) => c.primaryKey())
    .addColumn('hostname', 'text', required)
    .addColumn('pid', 'integer', required)
    .addColumn('started_at', 'timestamptz', required)
    .addColumn('beat_at', 'timestamptz', required)
    .execute();

  await db.schema
    .createTable('auth_sessions')
    .$call(organizationRow)
    .addColumn('user_id', 'text', cascadeTo('users'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'timestamptz', required)
    .addColumn('revoked_at', 'timestamptz')
    .$call(createdAtNow)
    .execute();
  await db.schema.createIndex('auth_sessions_expires_idx').on('auth_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['auth_sessions', 'worker_heartbeats', 'brand_products', 'brands', 'api_keys', 'memberships', 'users', 'organizations']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
