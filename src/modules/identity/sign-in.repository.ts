import type { Executor } from '../database.js';

export const signInRepository = {
  /** The user's first membership (oldest), with the organization: the organization a sign-in enters. */
  async primaryMembership(db: Executor, userId: string) {
    return (
      (await db
        .selectFrom('memberships')
        .innerJoin('organizations', 'organizations.id', 'memberships.organization_id')
        .select(['memberships.organization_id', 'memberships.role', 'organizations.name'])
        .where('memberships.user_id', '=', userId)
        .orderBy('memberships.created_at')
        .orderBy('memberships.organization_id')
        .executeTakeFirst()) ?? null
    );
  },

  async membership(db: Executor, organizationId: string, userId: string) {
    return (
      (await db
        .selectFrom('memberships')
        .innerJoin('organizations', 'organizations.id', 'memberships.organization_id')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select(['memberships.role', 'organizations.name', 'users.email', 'users.display_name'])
        .where('memberships.organization_id', '=', organizationId)
        .where('memberships.user_id', '=', userId)
        .executeTakeFirst()) ?? null
    );
  },

  async insertExchangeCode(
    db: Executor,
    row: {
      codeHash: string;
      nonceHash: string;
      bindingHash: string;
      origin: string;
      organizationId: string;
      userId: string;
      expiresAt: Date;
      at: Date;
    },
  ) {
    await db
      .insertInto('auth_exchange_codes')
      .values({
        code_hash: row.codeHash,
        nonce_hash: row.nonceHash,
        binding_hash: row.bindingHash,
        origin: row.origin,
        organization_id: row.organizationId,
        user_id: row.userId,
        expires_at: row.expiresAt,
        created_at: row.at,
      })
      .execute();
  },

  /** Marks the code used (whatever the outcome of the checks that follow) and returns it; null when unknown or used. */
  async consumeExchangeCode(db: Executor, codeHash: string, at: Date) {
    return (
      (await db
        .updateTable('auth_exchange_codes')
        .set({ consumed_at: at })
        .where('code_hash', '=', codeHash)
        .where('consumed_at', 'is', null)
        .returningAll()
        .executeTakeFirst()) ?? null
    );
  },
};
