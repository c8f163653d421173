/**
 * Tool API: keys owned by users (tier on users.tier) and idempotency records. Records keep the first
 * result for 24 hours in the database, so replays survive a restart; the primary key scopes them to
 * the API key and tool. Row types: src/modules/tools/tools.tables.ts.
 */
import { type Kysely, sql } from 'kysely';
import { cascadeTo, createdAt, createdAtNow, idKey, required } from './migration-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tool_api_keys')
    .$call(idKey)
    .addColumn('user_id', 'text', cascadeTo('users'))
    .addColumn('name', 'text', required)
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('last_four', 'text', required)
    .addColumn('secret_hash', 'text', required)
    .addColumn('scopes', sql`text[]`, required)
    .addColumn('last_used_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .$call(createdAtNow)
    .execute();
  await db.schema.createIndex('tool_api_keys_user_idx').on('tool_api_keys').columns(['user_id', 'id']).execute();

  await db.schema
    .createTable('tool_idempotency')
    .addColumn('api_key_id', 'text', cascadeTo('tool_api_keys'))
    .addColumn('tool', 'text', required)
    .addColumn('idempotency_key', 'text', required)
    .addColumn('fingerprint', 'text', required)
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress','completed')`))
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'jsonb')
    .$call(createdAt)
    .addColumn('expires_at', 'timestamptz', required)
    .addPrimaryKeyConstraint('tool_idempotency_pk', ['api_key_id', 'tool', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('tool_idempotency_expires_idx').on('tool_idempotency').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tool_idempotency').ifExists().execute();
  await db.schema.dropTable('tool_api_keys').ifExists().execute();
}
