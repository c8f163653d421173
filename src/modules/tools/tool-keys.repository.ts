/** Tool API keys; their owners are users of the identity area (the tier lives on users.tier, read through its port). */
import { CompiledQuery, type InferResult } from 'kysely';
import type { Executor } from '../database.js';
import type { UsersReadPort } from '../identity/identity.module.js';

function findByPrefixQuery(db: Executor, users: Pick<UsersReadPort, 'tierOf'>, prefix: string) {
  return db
    .selectFrom('tool_api_keys as k')
    .select(['k.id', 'k.user_id', 'k.secret_hash', 'k.scopes', 'k.revoked_at', 'k.last_used_at'])
    .select(users.tierOf(db, 'k.user_id').as('tier'))
    .where('k.prefix', '=', prefix);
}
type FindByPrefixRow = InferResult<ReturnType<typeof findByPrefixQuery>>[number];

export interface ToolKeyRecord {
  id: string;
  userId: string;
  secretHash: string;
  scopes: string[];
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  tier: string;
}

export interface ToolKeyListing {
  id: string;
  name: string;
  prefix: string;
  lastFour: string;
  scopes: string[];
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

/**
 * The key with its owner's current tier (the users port's subquery, in the same statement), so a tier change
 * applies to the next request. This runs on every tool request: each lookup compiles its SQL with Kysely
 * once and reuses it (building the query costs more than running it on the embedded database).
 */
export class ToolKeyLookup {
  private compiled: string | undefined;

  constructor(private readonly users: Pick<UsersReadPort, 'tierOf'>) {}

  async findByPrefix(db: Executor, prefix: string): Promise<ToolKeyRecord | null> {
    this.compiled ??= findByPrefixQuery(db, this.users, '').compile().sql;
    const result = await db.executeQuery<FindByPrefixRow>(CompiledQuery.raw(this.compiled, [prefix]));
    const row = result.rows[0];
    if (!row) return null;
    return {
      id: row.id,
      userId: row.user_id,
      secretHash: row.secret_hash,
      scopes: row.scopes,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
      tier: row.tier,
    };
  }
}

export const toolKeysRepository = {
  async insert(
    db: Executor,
    row: { id: string; userId: string; name: string; prefix: string; lastFour: string; secretHash: string; scopes: string[]; at: Date },
  ): Promise<void> {
    await db
      .insertInto('tool_api_keys')
      .values({
        id: row.id,
        user_id: row.userId,
        name: row.name,
        prefix: row.prefix,
        last_four: row.lastFour,
        secret_hash: row.secretHash,
        scopes: row.scopes,
        created_at: row.at,
      })
      .execute();
  },

  async listByUser(db: Executor, userId: string): Promise<ToolKeyListing[]> {
    const rows = await db
      .selectFrom('tool_api_keys')
      .select(['id', 'name', 'prefix', 'last_four', 'scopes', 'last_used_at', 'revoked_at', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      lastFour: r.last_four,
      scopes: r.scopes,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
      createdAt: r.created_at,
    }));
  },

  /** Revokes once; false when the key does not exist or was revoked already. */
  async revoke(db: Executor, id: string, at: Date): Promise<boolean> {
    const result = await db
      .updateTable('tool_api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async ownerOf(db: Executor, id: string): Promise<string | null> {
    return (await db.selectFrom('tool_api_keys').select('user_id').where('id', '=', id).executeTakeFirst())?.user_id ?? null;
  },

  async exists(db: Executor, id: string): Promise<boolean> {
    return !!(await db.selectFrom('tool_api_keys').select('id').where('id', '=', id).executeTakeFirst());
  },

  /** One statement for every key used since the last write (never moves a newer value back). */
  async touchLastUsed(db: Executor, ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('tool_api_keys')
      .set({ last_used_at: at })
      .where('id', 'in', ids)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  },
};
