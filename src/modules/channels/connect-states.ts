/**
 * Single-use OAuth connect states. The state sent to the platform is `<id>.<secret>`: the id finds the
 * stored request (organization, brand, return URL, redirect URI, scopes, PKCE verifier, expiry) and the
 * 256-bit secret is checked against its stored SHA-256, so a state cannot be forged or guessed. Consuming
 * is one conditional UPDATE, so two callbacks with the same state cannot both succeed.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Selectable } from 'kysely';
import { newId } from '../../platform/ids.js';
import type { Encryptor } from '../../platform/secrets/encryption.js';
import type { Platform } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import type { ChannelConnectStatesTable } from './channels.tables.js';

export type ConnectStateRow = Selectable<ChannelConnectStatesTable>;

const sha256 = (v: string) => createHash('sha256').update(v).digest();

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: sha256(verifier).toString('base64url') };
}

export async function createConnectState(
  db: Executor,
  encryptor: Encryptor,
  input: {
    organizationId: string;
    brandId: string | null;
    platform: Platform;
    returnUrl: string | null;
    redirectUri: string;
    scopes: string[];
    codeVerifier: string | null;
    expiresAt: Date;
    at: Date;
  },
): Promise<string> {
  const id = newId('cst');
  const secret = randomBytes(32).toString('base64url');
  await db
    .insertInto('channel_connect_states')
    .values({
      id,
      organization_id: input.organizationId,
      brand_id: input.brandId,
      platform: input.platform,
      secret_hash: sha256(secret).toString('base64url'),
      return_url: input.returnUrl,
      redirect_uri: input.redirectUri,
      scopes: input.scopes,
      code_verifier: input.codeVerifier ? encryptor.encrypt(input.codeVerifier, `pkce:${id}`) : null,
      expires_at: input.expiresAt,
      created_at: input.at,
    })
    .execute();
  return `${id}.${secret}`;
}

/** Finds the stored request a state names when its secret matches (consumed or not); null otherwise. */
export async function findConnectState(db: Executor, state: string): Promise<ConnectStateRow | null> {
  const m = /^(cst_[0-9A-HJKMNP-TV-Z]{26})\.([A-Za-z0-9_-]{43})$/.exec(state);
  if (!m) return null;
  const row = await db.selectFrom('channel_connect_states').selectAll().where('id', '=', m[1]!).executeTakeFirst();
  if (!row) return null;
  const expected = Buffer.from(row.secret_hash, 'base64url');
  const given = sha256(m[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given) ? row : null;
}

/** Marks the state used; false when it was already used or has expired. */
export async function consumeConnectState(db: Executor, id: string, now: Date): Promise<boolean> {
  const res = await db
    .updateTable('channel_connect_states')
    .set({ consumed_at: now })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows ?? 0) === 1;
}

export function codeVerifierOf(encryptor: Encryptor, row: ConnectStateRow): string | undefined {
  return row.code_verifier ? encryptor.decrypt(row.code_verifier, `pkce:${row.id}`) : undefined;
}

/** Housekeeping: states expired for a day are deleted (the lifecycle job calls this). */
export async function purgeConnectStates(db: Executor, now: Date): Promise<number> {
  const res = await db
    .deleteFrom('channel_connect_states')
    .where('expires_at', '<', new Date(now.getTime() - 86_400_000))
    .executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}

/**
 * Housekeeping: a login that offered several accounts and was never completed leaves an
 * in_between_steps placeholder; after a day it is removed with the secrets it holds (cascade).
 */
export async function purgeAbandonedChoices(db: Executor, now: Date): Promise<number> {
  const res = await db
    .deleteFrom('channel_accounts')
    .where('state', '=', 'in_between_steps')
    .where('external_account_id', 'like', 'pending:%')
    .where('updated_at', '<', new Date(now.getTime() - 86_400_000))
    .executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}
