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
import { connectStatesRepository } from './connect-states.repository.js';

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
  await connectStatesRepository.insert(db, {
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
  });
  return `${id}.${secret}`;
}

/** Finds the stored request a state names when its secret matches (consumed or not); null otherwise. */
export async function findConnectState(db: Executor, state: string): Promise<ConnectStateRow | null> {
  const m = /^(cst_[0-9A-HJKMNP-TV-Z]{26})\.([A-Za-z0-9_-]{43})$/.exec(state);
  if (!m) return null;
  const row = await connectStatesRepository.byId(db, m[1]!);
  if (!row) return null;
  const expected = Buffer.from(row.secret_hash, 'base64url');
  const given = sha256(m[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given) ? row : null;
}

/** Marks the state used; false when it was already used or has expired. */
export async function consumeConnectState(db: Executor, row: Pick<ConnectStateRow, 'id' | 'organization_id'>, now: Date): Promise<boolean> {
  return connectStatesRepository.consume(db, row.organization_id, row.id, now);
}

export function codeVerifierOf(encryptor: Encryptor, row: ConnectStateRow): string | undefined {
  return row.code_verifier ? encryptor.decrypt(row.code_verifier, `pkce:${row.id}`) : undefined;
}
