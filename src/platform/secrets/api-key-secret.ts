/**
 * API key secrets: `<kind>_<prefix>_<secret>`. The `<kind>_<prefix>` part is visible (listings show it,
 * lookups use it); the whole key is stored only as a sha256 digest. Keys carry 192 bits of randomness,
 * so a fast digest is as safe as a slow one here and keeps authentication off the CPU budget.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface GeneratedKey {
  /** the full secret, shown once */
  key: string;
  prefix: string;
  hash: string;
}

export function generateKey(kind: string): GeneratedKey {
  const prefix = `${kind}_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)}`;
  const key = `${prefix}_${randomBytes(24).toString('base64url')}`;
  return { key, prefix, hash: digest(key) };
}

export function digest(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Splits a presented key into its lookup prefix, or null when it is not of our shape. */
export function keyPrefix(presented: string): string | null {
  const m = /^([a-z]+_[A-Za-z0-9]{8})_[A-Za-z0-9_-]{20,}$/.exec(presented);
  return m ? m[1]! : null;
}

export function digestMatches(presented: string, storedHex: string): boolean {
  const a = hash('sha256', presented, 'buffer');
  const b = Buffer.from(storedHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A masked form for listings: the prefix and the last four characters. */
export function maskKey(prefix: string, lastFour: string): string {
  return `${prefix}_…${lastFour}`;
}
