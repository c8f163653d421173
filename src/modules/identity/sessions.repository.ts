import { sql } from 'kysely';
import type { Executor } from '../database.js';

export const sessionsRepository = {
  async insert(
    db: Executor,
    row: { id: string; organizationId: string; userId: string; tokenHash: string; expiresAt: Date; idleExpiresAt: Date; at: Date },
  ) {
    await db
      .insertInto('auth_sessions')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        user_id: row.userId,
        token_hash: row.tokenHash,
        expires_at: row.expiresAt,
        idle_expires_at: row.idleExpiresAt,
        last_seen_at: row.at,
        created_at: row.at,
      })
      .execute();
  },

  /** Lookup by token digest: runs before the organization is known (the digest is globally unique). */
  async findLiveByTokenHash(db: Executor, tokenHash: string, now: Date) {
    return (
      (await db
        .selectFrom('auth_sessions')
        .innerJoin('memberships', (j) =>
          j
            .onRef('memberships.organization_id', '=', 'auth_sessions.organization_id')
            .onRef('memberships.user_id', '=', 'auth_sessions.user_id'),
        )
        .innerJoin('users', 'users.id', 'auth_sessions.user_id')
        .select([
          'auth_sessions.id',
          'auth_sessions.organization_id',
          'auth_sessions.user_id',
          'auth_sessions.expires_at',
          'auth_sessions.idle_expires_at',
          'auth_sessions.last_seen_at',
          'memberships.role',
          'users.email',
          'users.display_name',
        ])
        .where('auth_sessions.token_hash', '=', tokenHash)
        .where('auth_sessions.revoked_at', 'is', null)
        .where('auth_sessions.expires_at', '>', now)
        .where((eb) => eb.or([eb('auth_sessions.idle_expires_at', 'is', null), eb('auth_sessions.idle_expires_at', '>', now)]))
        .executeTakeFirst()) ?? null
    );
  },

  async touch(db: Executor, organizationId: string, id: string, at: Date, idleExpiresAt: Date) {
    await db
      .updateTable('auth_sessions')
      .set({ last_seen_at: at, idle_expires_at: idleExpiresAt })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  /** Deletes the sessions past their absolute expiry; answers how many. */
  /**
   * The maintenance prune: one bounded batch of sessions past their absolute expiry (revoked and idle
   * ones included: none of them signs in any more), chosen by auth_sessions_expires_idx. A live session
   * (expiry ahead) is never removed.
   */
  async deleteExpired(db: Executor, now: Date, limit = 1_000): Promise<number> {
    const r = await sql`
      delete from auth_sessions where id in (
        select id from auth_sessions where expires_at < ${now} order by expires_at limit ${limit} for update skip locked)`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },

  async revoke(db: Executor, organizationId: string, id: string, at: Date) {
    await db
      .updateTable('auth_sessions')
      .set({ revoked_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  },
};
