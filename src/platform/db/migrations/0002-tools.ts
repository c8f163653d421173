/**
 * Tool API: keys owned by users (tier on users.tier) and idempotency records. Records keep the first
 * result for 24 hours in the database, so replays survive a restart; the primary key scopes them to
 * the API key and tool. Row types: src/modules/tools/tools.tables.ts.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tool_api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('last_four', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('tool_api_keys_user_idx').on('tool_api_keys').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('tool_idempotency')
    .addColumn('api_key_id', 'text', (c) => c.notNull().references('tool_api_keys.id').onDelete('cascade'))
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress','completed')`))
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('tool_idempotency_pk', ['api_key_id', 'tool', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('tool_idempotency_expires_idx').on('tool_idempotency').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tool_idempotency').ifExists().execute();
  await db.schema.dropTable('tool_api_keys').ifExists().execute();
}
