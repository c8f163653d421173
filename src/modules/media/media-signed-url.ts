/**
 * Signed, expiring URLs for unauthenticated access to media content.
 *
 * Format: `{publicBaseUrl}/v1/media/{id}/content?org={organizationId}&expires={unix seconds}&signature={base64url}`
 * where signature = HMAC-SHA256(signingKey, "media-content:{organizationId}:{id}:{expires}"). The
 * organization travels in the URL so the lookup stays confined to one organization like every query. Expiry is rounded up to the next
 * full hour so the same item yields the same URL for an hour (cache friendly); the effective lifetime is
 * therefore between the configured TTL and TTL + 1 hour. The key is derived from the service
 * encryption key (`Encryptor.deriveKey(MEDIA_URL_KEY_LABEL)`), so every process of a deployment verifies
 * the others' URLs.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const ROUND_SECONDS = 3600;
export const MEDIA_URL_KEY_LABEL = 'service-api media content url v1';

export class MediaUrlSigner {
  constructor(
    private readonly key: Buffer,
    private readonly publicBaseUrl: string,
    private readonly ttlSeconds: number,
  ) {}

  private mac(organizationId: string, id: string, expires: number): string {
    return createHmac('sha256', this.key).update(`media-content:${organizationId}:${id}:${expires}`).digest('base64url');
  }

  /** The signed content URL of an item, valid from `nowMs` for at least the TTL. */
  sign(organizationId: string, id: string, nowMs: number): { url: string; expiresAt: Date } {
    const expires = Math.ceil((nowMs / 1000 + this.ttlSeconds) / ROUND_SECONDS) * ROUND_SECONDS;
    const query = `org=${encodeURIComponent(organizationId)}&expires=${expires}&signature=${this.mac(organizationId, id, expires)}`;
    const url = `${this.publicBaseUrl}/v1/media/${encodeURIComponent(id)}/content?${query}`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  /** 'valid', or why the presented signature is refused. */
  verify(
    organizationId: string,
    id: string,
    expires: string | undefined,
    signature: string | undefined,
    nowMs: number,
  ): 'valid' | 'expired' | 'invalid' {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.mac(organizationId, id, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 <= nowMs ? 'expired' : 'valid';
  }
}
