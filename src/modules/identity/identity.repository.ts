import { type AliasableExpression, sql } from 'kysely';
import type { Executor } from '../database.js';

export const identityRepository = {
  async insertOrganization(db: Executor, row: { id: string; name: string; at: Date }) {
    await db.insertInto('organizations').values({ id: row.id, name: row.name, created_at: row.at, updated_at: row.at }).execute();
  },
  async organizationExists(db: Executor, organizationId: string): Promise<boolean> {
    return !!(await db.selectFrom('organizations').select('id').where('id', '=', organizationId).executeTakeFirst());
  },
  async countOrganizations(db: Executor): Promise<number> {
    const r = await db
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },
  /** Every organization, in id order, with its count of active API keys (the operator's listing, not scoped to one). */
  async listOrganizations(db: Executor): Promise<Array<{ id: string; name: string; createdAt: Date; activeApiKeys: number }>> {
    const rows = await db
      .selectFrom('organizations as o')
      .select((eb) => [
        'o.id',
        'o.name',
        'o.created_at',
        eb
          .selectFrom('api_keys')
          .whereRef('api_keys.organization_id', '=', 'o.id')
          .where('api_keys.revoked_at', 'is', null)
          .select(eb.fn.countAll<number>().as('n'))
          .as('active_api_keys'),
      ])
      .orderBy('o.id')
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, activeApiKeys: Number(r.active_api_keys ?? 0) }));
  },
  async findUserByEmail(db: Executor, email: string) {
    return (
      (await db
        .selectFrom('users')
        .selectAll()
        .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
        .executeTakeFirst()) ?? null
    );
  },
  async insertUser(db: Executor, row: { id: string; email: string; passwordHash: string | null; tier?: string; at: Date }) {
    await db
      .insertInto('users')
      .values({
        id: row.id,
        email: row.email,
        password_hash: row.passwordHash,
        tier: row.tier ?? 'basic',
        created_at: row.at,
        updated_at: row.at,
      })
      .execute();
  },
  async setUserTier(db: Executor, userId: string, tier: string, at: Date): Promise<void> {
    await db.updateTable('users').set({ tier, updated_at: at }).where('id', '=', userId).execute();
  },
  /** The tier of the user whose id is the caller's column `userIdColumn`, as a scalar subquery of the caller's statement. */
  tierOf(db: Executor, userIdColumn: string): AliasableExpression<string> {
    return db.selectFrom('users').select('users.tier').where('users.id', '=', sql.ref<string>(userIdColumn)).$asScalar();
  },
  async insertMembership(db: Executor, row: { organizationId: string; userId: string; role: 'member' | 'admin' | 'owner' }) {
    await db.insertInto('memberships').values({ organization_id: row.organizationId, user_id: row.userId, role: row.role }).execute();
  },
};
