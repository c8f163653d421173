import type { Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { ApiKeysTable } from '../../platform/db/schema.js';
import type { Executor } from '../database.js';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  name: string;
  prefix: string;
  secretHash: string;
  scopes: string[];
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
}

const toRecord = (r: Omit<Selectable<ApiKeysTable>, 'created_by_user_id'>): ApiKeyRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  prefix: r.prefix,
  secretHash: r.secret_hash,
  scopes: r.scopes,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

export const apiKeysRepository = {
  async insert(
    db: Executor,
    row: Pick<ApiKeyRecord, 'id' | 'organizationId' | 'name' | 'prefix' | 'secretHash' | 'scopes'> & {
      createdByUserId: string | null;
      expiresAt?: Date | null;
    },
  ) {
    await db
      .insertInto('api_keys')
      .values({
        id: row.id,
        organization_id: row.organizationId,
        name: row.name,
        prefix: row.prefix,
        secret_hash: row.secretHash,
        scopes: row.scopes,
        created_by_user_id: row.createdByUserId,
        expires_at: row.expiresAt ?? null,
      })
      .execute();
  },

  /**
   * Authentication lookup by the key's visible prefix. This is the one query that runs before the
   * organization is known: the prefix is globally unique and the organization comes from the row.
   */
  async findByPrefixForAuthentication(db: Executor, prefix: string): Promise<ApiKeyRecord | null> {
    const r = await db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).executeTakeFirst();
    return r ? toRecord(r) : null;
  },

  async listForOrganization(db: Executor, organizationId: string): Promise<ApiKeyRecord[]> {
    const rows = await db.selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId).orderBy('id').execute();
    return rows.map(toRecord);
  },

  /** A page of keys (ordered by id, newest last), limit + 1 rows so the caller can tell a next page. */
  async listPage(db: Executor, organizationId: string, after: string | null, limit: number): Promise<ApiKeyRecord[]> {
    const q = db.selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId);
    const rows = await keysetPage(q, 'id', after, limit).execute();
    return rows.map(toRecord);
  },

  async find(db: Executor, organizationId: string, id: string): Promise<ApiKeyRecord | null> {
    const r = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return r ? toRecord(r) : null;
  },

  async revoke(db: Executor, organizationId: string, id: string, at: Date): Promise<boolean> {
    const res = await db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  },

  async touchLastUsed(db: Executor, organizationId: string, id: string, at: Date): Promise<void> {
    await db.updateTable('api_keys').set({ last_used_at: at }).where('organization_id', '=', organizationId).where('id', '=', id).execute();
  },
};
