/** Idempotency-Key header parsing and request fingerprints. */
import { createHash } from 'node:crypto';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Visible ASCII (0x21-0x7E) without the double quote, 1-255 characters; a quoted form is unwrapped. */
const KEY_PATTERN = /^[\x21\x23-\x7e]{1,255}$/;

export type IdempotencyKeyResult = { ok: true; key: string | null } | { ok: false; message: string };

export function parseIdempotencyKey(header: string | string[] | undefined): IdempotencyKeyResult {
  if (header === undefined) return { ok: true, key: null };
  if (Array.isArray(header)) {
    return { ok: false, message: 'Send a single Idempotency-Key header.' };
  }
  let value = header.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    value = value.slice(1, -1);
  }
  if (!KEY_PATTERN.test(value)) {
    return {
      ok: false,
      message: 'Idempotency-Key must hold 1-255 visible ASCII characters, optionally in double quotes.',
    };
  }
  return { ok: true, key: value };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Same JSON value, whatever the key order or whitespace, gives the same fingerprint. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
