/**
 * The prune of identity's single-use and short-lived secrets once they can no longer be used (the
 * maintenance job's steps): OAuth authorization codes, OAuth access and refresh tokens, and the dashboard's
 * sign-in exchange codes, each a day after its expiry. The day keeps a replayed code or refresh token
 * recognised as reused (its family is revoked) while it could still matter; after it, a replay is simply an
 * unknown code. One bounded batch per statement, chosen by the table's expiry index.
 */
import { sql } from 'kysely';
import type { Db } from '../database.js';

const GRACE_MS = 86_400_000;

/** Deletes up to `limit` rows of `table` (keyed by `key`) expired for longer than the grace period. */
async function pruneExpired(
  db: Db,
  table: 'oauth_codes' | 'oauth_tokens' | 'auth_exchange_codes',
  key: 'code_hash' | 'id',
  now: Date,
  limit: number,
): Promise<number> {
  const r = await sql`
    delete from ${sql.table(table)} where ${sql.ref(key)} in (
      select ${sql.ref(key)} from ${sql.table(table)} where expires_at < ${new Date(now.getTime() - GRACE_MS)}
      order by expires_at limit ${limit} for update skip locked)`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export const identityRetentionRepository = {
  pruneOAuthCodes: (db: Db, now: Date, limit: number) => pruneExpired(db, 'oauth_codes', 'code_hash', now, limit),
  pruneOAuthTokens: (db: Db, now: Date, limit: number) => pruneExpired(db, 'oauth_tokens', 'id', now, limit),
  pruneExchangeCodes: (db: Db, now: Date, limit: number) => pruneExpired(db, 'auth_exchange_codes', 'code_hash', now, limit),
};
