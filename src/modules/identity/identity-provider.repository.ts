/** SQL of sign-in through the OpenID Connect provider: pending logins, provider links, join domains, and the users and memberships they create. */
import type { Executor } from '../database.js';

export const identityProviderRepository = {
  async insertLogin(
    db: Executor,
    row: {
      stateHash: string;
      bindingHash: string;
      origin: string;
      codeVerifier: string;
      nonce: string;
      redirectUri: string;
      returnTo: string | null;
      expiresAt: Date;
      at: Date;
    },
  ): Promise<void> {
    await db
      .insertInto('identity_provider_logins')
      .values({
        state_hash: row.stateHash,
        binding_hash: row.bindingHash,
        origin: row.origin,
        code_verifier: row.codeVerifier,
        nonce: row.nonce,
        redirect_uri: row.redirectUri,
        return_to: row.returnTo,
        expires_at: row.expiresAt,
        created_at: row.at,
      })
      .execute();
  },

  /** Marks the login used (whatever the outcome of the checks that follow) and returns it; null when unknown or used. */
  async consumeLogin(db: Executor, stateHash: string, at: Date) {
    return (
      (await db
        .updateTable('identity_provider_logins')
        .set({ consumed_at: at })
        .where('state_hash', '=', stateHash)
        .where('consumed_at', 'is', null)
        .returningAll()
        .executeTakeFirst()) ?? null
    );
  },

  /** The maintenance prune: logins past their expiry (used or not). */
  async deleteExpiredLogins(db: Executor, now: Date): Promise<number> {
    return Number((await db.deleteFrom('identity_provider_logins').where('expires_at', '<', now).executeTakeFirst()).numDeletedRows);
  },

  async linkedUser(db: Executor, issuer: string, subject: string): Promise<string | null> {
    const r = await db
      .selectFrom('identity_provider_links')
      .select('user_id')
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return r?.user_id ?? null;
  },

  async link(db: Executor, row: { issuer: string; subject: string; userId: string; email: string; at: Date }): Promise<void> {
    await db
      .insertInto('identity_provider_links')
      .values({
        issuer: row.issuer,
        subject: row.subject,
        user_id: row.userId,
        email: row.email,
        created_at: row.at,
        last_sign_in_at: row.at,
      })
      .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
      .execute();
  },

  async touchLink(db: Executor, issuer: string, subject: string, at: Date): Promise<void> {
    await db
      .updateTable('identity_provider_links')
      .set({ last_sign_in_at: at })
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .execute();
  },

  async setDisplayName(db: Executor, userId: string, name: string, at: Date): Promise<void> {
    await db.updateTable('users').set({ display_name: name, updated_at: at }).where('id', '=', userId).execute();
  },

  async joinRule(db: Executor, emailDomain: string) {
    return (
      (await db
        .selectFrom('identity_provider_join_domains')
        .select(['organization_id', 'role'])
        .where('email_domain', '=', emailDomain)
        .executeTakeFirst()) ?? null
    );
  },

  /** Lets people of the domain join the organization on first sign-in (a domain belongs to one organization). */
  async setJoinRule(db: Executor, row: { emailDomain: string; organizationId: string; role: string; at: Date }): Promise<void> {
    await db
      .insertInto('identity_provider_join_domains')
      .values({ email_domain: row.emailDomain, organization_id: row.organizationId, role: row.role, created_at: row.at })
      .onConflict((oc) => oc.column('email_domain').doUpdateSet({ organization_id: row.organizationId, role: row.role }))
      .execute();
  },

  async removeJoinRule(db: Executor, organizationId: string, emailDomain: string): Promise<boolean> {
    const r = await db
      .deleteFrom('identity_provider_join_domains')
      .where('organization_id', '=', organizationId)
      .where('email_domain', '=', emailDomain)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },
};
