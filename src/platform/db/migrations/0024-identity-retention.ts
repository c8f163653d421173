/** Expiry indexes for the maintenance prune of OAuth codes and tokens and the sign-in exchange codes. */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index oauth_codes_expires_idx on oauth_codes (expires_at)`.execute(db);
  await sql`create index oauth_tokens_expires_idx on oauth_tokens (expires_at)`.execute(db);
  await sql`create index auth_exchange_codes_expires_idx on auth_exchange_codes (expires_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists auth_exchange_codes_expires_idx`.execute(db);
  await sql`drop index if exists oauth_tokens_expires_idx`.execute(db);
  await sql`drop index if exists oauth_codes_expires_idx`.execute(db);
}
