/**
 * Operator-provisioned OAuth client secrets. An app normally has a generated secret stored as a hash;
 * the operator may instead give an app the reference `env:NAME`, where NAME is an entry of the setting
 * SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS (NAME=secret pairs), the same way channel token references are
 * limited to SERVICE_CHANNEL_TOKEN_ENV_REFS. A reference never names the process environment, and only
 * the CLI sets one: a tenant (API or dashboard) cannot.
 */
import type { Env } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import { digest } from '../../platform/secrets/api-key-secret.js';

const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]{0,127})$/;

/** NAME -> sha256 hex digest of the secret: the token endpoint compares digests in constant time. */
export function clientSecretRefDigests(env: Pick<Env, 'SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (env.SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    const name = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    if (name && value) out.set(name, digest(value));
  }
  return out;
}

/** The digest a reference resolves to, or null (a malformed reference, or a name the setting lacks). */
export function resolveClientSecretRef(ref: string, digests: Map<string, string>): string | null {
  const m = ENV_REF.exec(ref);
  return m ? (digests.get(m[1]!) ?? null) : null;
}

/** Throws invalid_request unless the reference names an entry of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS. */
export function assertClientSecretRef(ref: string, digests: Map<string, string>): void {
  if (!resolveClientSecretRef(ref, digests))
    throw new AppError('invalid_request', {
      message: `--client-secret-ref ${ref} must be env:NAME with NAME an entry of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS (NAME=secret pairs).`,
    });
}
