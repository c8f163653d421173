/**
 * Tool API keys use the service's key format (platform/secrets/api-key-secret.ts) with kind `tk`:
 * `tk_<8 visible>_<secret>`; only the sha256 digest is stored, the visible prefix is the lookup index.
 */
import { digestMatches, generateKey, keyPrefix, maskKey } from '../../platform/secrets/api-key-secret.js';

const TOOL_KEY_KIND = 'tk';

export function newToolApiKey() {
  const generated = generateKey(TOOL_KEY_KIND);
  return { ...generated, lastFour: generated.key.slice(-4) };
}

/** The lookup prefix of a presented tool key, or null when it is not a tool key at all. */
export function toolKeyPrefix(presented: string): string | null {
  const prefix = keyPrefix(presented);
  return prefix?.startsWith(`${TOOL_KEY_KIND}_`) ? prefix : null;
}

export { digestMatches };

export function maskToolKey(prefix: string, lastFour: string): string {
  return maskKey(prefix, lastFour);
}

/** Reads `Authorization: Bearer <key>` or else `X-API-Key: <key>`; null when neither carries a value. */
export function credentialFromHeaders(headers: { authorization?: string | string[]; 'x-api-key'?: string | string[] }): string | null {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization.trim() !== '') {
    const match = /^Bearer[ \t]+(\S+)$/i.exec(authorization.trim());
    // Another scheme or a malformed value is a bad credential, not a missing one.
    return match ? (match[1] as string) : authorization.trim();
  }
  const apiKey = headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.trim() !== '') return apiKey.trim();
  return null;
}
