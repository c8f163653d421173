/**
 * SQL of `provider_token_secrets`, the encrypted provider tokens the token vault (token-vault.ts)
 * stores and opens. Every statement is scoped by the organization that owns the secret.
 */
import type { Insertable } from 'kysely';
import type { Executor } from '../database.js';
import type { ProviderTokenSecretsTable } from './channels.tables.js';

export const tokenSecretsRepository = {
  async insert(db: Executor, row: Insertable<ProviderTokenSecretsTable>): Promise<void> {
    await db.insertInto('provider_token_secrets').values(row).execute();
  },

  /** The channel holding a stored secret of the organization (null: free); undefined when there is no such secret. */
  async holderOf(db: Executor, organizationId: string, id: string): Promise<{ channelAccountId: string | null } | undefined> {
    const row = await db
      .selectFrom('provider_token_secrets')
      .select(['channel_account_id'])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row ? { channelAccountId: row.channel_account_id } : undefined;
  },

  /** The ciphertext of a stored secret of the organization, or null. */
  async ciphertextOf(db: Executor, organizationId: string, id: string): Promise<string | null> {
    const row = await db
      .selectFrom('provider_token_secrets')
      .select(['ciphertext'])
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.ciphertext ?? null;
  },

  /** Marks stored secrets of the organization as held by a channel. */
  async attach(db: Executor, organizationId: string, channelAccountId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('provider_token_secrets')
      .set({ channel_account_id: channelAccountId })
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .execute();
  },

  /** Deletes the secrets a channel holds except the `keep` ids; answers how many were deleted. */
  async deleteForChannel(db: Executor, organizationId: string, channelAccountId: string, keep: string[]): Promise<number> {
    let q = db
      .deleteFrom('provider_token_secrets')
      .where('organization_id', '=', organizationId)
      .where('channel_account_id', '=', channelAccountId);
    if (keep.length > 0) q = q.where('id', 'not in', keep);
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows ?? 0);
  },

  /** Deletes stored secrets of the organization by id; answers how many were deleted. */
  async deleteIds(db: Executor, organizationId: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const res = await db
      .deleteFrom('provider_token_secrets')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .executeTakeFirst();
    return Number(res.numDeletedRows ?? 0);
  },
};
