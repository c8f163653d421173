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

export const identityRetentionRepository = {
  async pruneOAuthCodes(db: Db, now: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from oauth_codes where code_hash in (
        select code_hash from oauth_codes where expires_at < ${new Date(now.getTime() - GRACE_MS)}
        order by expires_at limit ${limit} for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },

  async pruneOAuthTokens(db: Db, now: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from oauth_tokens where id in (
        select id from oauth_tokens where expires_at < ${new Date(now.getTime() - GRACE_MS)}
        order by expires_at limit ${limit} for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },

  async pruneExchangeCodes(db: Db, now: Date, limit: number): Promise<number> {
    const r = await sql`
      delete from auth_exchange_codes where code_hash in (
        select code_hash from auth_exchange_codes where expires_at < ${new Date(now.getTime() - GRACE_MS)}
        order by expires_at limit ${limit} for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
