/**
 * The platforms' webhook signature schemes, all HMACs over the raw request body, compared in constant
 * time: Meta `X-Hub-Signature-256: sha256=<hex>`, X `x-twitter-webhooks-signature: sha256=<base64>`,
 * WebSub (YouTube) `X-Hub-Signature: sha1=<hex>` (the WebSub spec also allows sha256/384/512).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HmacAlgorithm = 'sha1' | 'sha256' | 'sha384' | 'sha512';

export function hmac(algorithm: HmacAlgorithm, secret: string, data: Buffer | string, encoding: 'hex' | 'base64'): string {
  return createHmac(algorithm, secret).update(data).digest(encoding);
}

/** Constant-time string equality (a length mismatch still compares equal-length buffers). */
export function safeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  const same = timingSafeEqual(a.length === b.length ? a : b, b);
  return same && a.length === b.length;
}

/** `<algorithm>=<digest>` headers: true when the digest is the HMAC of `raw` with `secret`. */
export function verifyPrefixedSignature(
  header: string | undefined,
  raw: Buffer,
  secret: string | null,
  allowed: readonly HmacAlgorithm[],
  encoding: 'hex' | 'base64',
): boolean {
  if (!header || !secret) return false;
  const i = header.indexOf('=');
  if (i < 1) return false;
  const algorithm = header.slice(0, i).trim().toLowerCase() as HmacAlgorithm;
  if (!allowed.includes(algorithm)) return false;
  const digest = header.slice(i + 1).trim();
  const expected = hmac(algorithm, secret, raw, encoding);
  return encoding === 'hex' ? safeEqual(digest.toLowerCase(), expected) : safeEqual(digest, expected);
}

/** Events a platform delivery carries, in platform-neutral terms. */
export type InboundEvent =
  /** a comment/reply appeared or changed on a post of an account */
  | { kind: 'comment'; accountId: string | null; providerPostId: string; providerCommentId: string | null }
  /** the account took back the app's access: its channel needs a new login */
  | { kind: 'deauthorized'; accountId: string }
  /** a video of a channel was published, updated or deleted (YouTube feed) */
  | { kind: 'video'; accountId: string; providerPostId: string; url: string | null; deleted: boolean };
