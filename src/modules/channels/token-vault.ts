/**
 * Provider tokens at rest. Every token is AES-256-GCM encrypted (Encryptor) in provider_token_secrets
 * with the secret's id and organization as associated data, so a ciphertext copied to another row or
 * organization does not decrypt. Channels hold references, never tokens:
 *
 * - `sec_<id>`  a stored secret of the same organization (written by the connect flow and refreshes)
 * - `env:NAME`  a token provisioned by the operator in SERVICE_CHANNEL_TOKEN_ENV_REFS (NAME=token pairs)
 */
import type { Config } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Encryptor } from '../../platform/secrets/encryption.js';
import type { Platform } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import { tokenSecretsRepository } from './token-secrets.repository.js';

const SECRET_REF = /^sec_[0-9A-HJKMNP-TV-Z]{26}$/;
const ENV_REF = /^env:([A-Za-z_][A-Za-z0-9_]{0,127})$/;

/** The stored secrets among references (env refs are the operator's, never stored). */
const storedIds = (refs: Array<string | null>): string[] => refs.filter((r): r is string => !!r && SECRET_REF.test(r));

function parseEnvTokens(config: Config): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (config.env.SERVICE_CHANNEL_TOKEN_ENV_REFS ?? '').split(',')) {
    const i = pair.indexOf('=');
    if (i <= 0) continue;
    const name = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    if (name && value) out.set(name, value);
  }
  return out;
}

export class TokenVault {
  private readonly envTokens: Map<string, string>;

  constructor(
    private readonly encryptor: Encryptor,
    config: Config,
  ) {
    this.envTokens = parseEnvTokens(config);
  }

  private aad(id: string, organizationId: string): string {
    return `provider_token:${id}:${organizationId}`;
  }

  /** Encrypts and stores a token; answers its reference (`sec_...`). */
  async store(
    db: Executor,
    input: {
      organizationId: string;
      platform: Platform;
      kind: 'access' | 'refresh';
      token: string;
      channelAccountId?: string | null;
      expiresAt?: Date | null;
      at: Date;
    },
  ): Promise<string> {
    const id = newId('sec');
    await tokenSecretsRepository.insert(db, {
      id,
      organization_id: input.organizationId,
      channel_account_id: input.channelAccountId ?? null,
      platform: input.platform,
      kind: input.kind,
      ciphertext: this.encryptor.encrypt(input.token, this.aad(id, input.organizationId)),
      expires_at: input.expiresAt ?? null,
      created_at: input.at,
    });
    return id;
  }

  /**
   * Checks that a reference given to the upsert route resolves (400 channel_token_ref_unresolvable
   * otherwise). A stored secret must belong to the organization and be free or already this channel's.
   */
  async assertResolvable(db: Executor, organizationId: string, ref: string, field: string, channelAccountId: string | null): Promise<void> {
    const fail = (why: string) => {
      throw new AppError('channel_token_ref_unresolvable', {
        message: `${field} ${why}. Accepted: a stored secret id (sec_...) of this organization, or env:NAME listed in SERVICE_CHANNEL_TOKEN_ENV_REFS.`,
        fields: [{ path: [field], source: 'body' }],
      });
    };
    const env = ENV_REF.exec(ref);
    if (env) {
      if (!this.envTokens.has(env[1]!)) fail(`names env:${env[1]}, which the server configuration does not provide`);
      return;
    }
    if (!SECRET_REF.test(ref)) fail('is not a secret reference');
    const secret = await tokenSecretsRepository.holderOf(db, organizationId, ref);
    if (!secret) fail('names no stored secret of this organization');
    if (secret!.channelAccountId && secret!.channelAccountId !== channelAccountId) fail('names a secret held by another channel account');
  }

  /** The token a reference names, or null when it cannot be resolved (deleted, foreign, unreadable). */
  async resolve(db: Executor, organizationId: string, ref: string | null): Promise<string | null> {
    if (!ref) return null;
    const env = ENV_REF.exec(ref);
    if (env) return this.envTokens.get(env[1]!) ?? null;
    if (!SECRET_REF.test(ref)) return null;
    return this.open(organizationId, ref, await tokenSecretsRepository.ciphertextOf(db, organizationId, ref));
  }

  /**
   * The token a reference names, given the ciphertext of the stored secret it names (read by the
   * caller in its own statement); null when it cannot be resolved, like resolve().
   */
  open(organizationId: string, ref: string | null, ciphertext: string | null): string | null {
    if (!ref) return null;
    const env = ENV_REF.exec(ref);
    if (env) return this.envTokens.get(env[1]!) ?? null;
    if (!SECRET_REF.test(ref) || ciphertext === null) return null;
    try {
      return this.encryptor.decrypt(ciphertext, this.aad(ref, organizationId));
    } catch {
      return null;
    }
  }

  /** Marks stored secrets as held by a channel (env refs are left alone). */
  async attach(db: Executor, organizationId: string, channelAccountId: string, refs: Array<string | null>): Promise<void> {
    await tokenSecretsRepository.attach(db, organizationId, channelAccountId, storedIds(refs));
  }

  /** Deletes the secrets a channel holds except the ones still referenced; answers how many were deleted. */
  async deleteForChannel(db: Executor, organizationId: string, channelAccountId: string, keep: Array<string | null> = []): Promise<number> {
    const kept = keep.filter((r): r is string => !!r);
    return tokenSecretsRepository.deleteForChannel(db, organizationId, channelAccountId, kept);
  }

  /** Deletes specific stored secrets (env refs are not ours to delete). */
  async deleteRefs(db: Executor, organizationId: string, refs: Array<string | null>): Promise<number> {
    return tokenSecretsRepository.deleteIds(db, organizationId, storedIds(refs));
  }
}
