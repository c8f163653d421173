/**
 * Developer credentials of an organization: API keys, OAuth apps and OAuth grants. Secrets are
 * generated here, answered once and stored only as sha256 digests.
 */
import { randomBytes } from 'node:crypto';
import { decodeCursor, page } from '../../http/pagination.js';
import { PUBLIC_SCOPES } from '../../http/principal.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { generateKey } from '../../platform/secrets/api-key-secret.js';
import type { AppDeps } from '../app-deps.js';
import { type ApiKeyRecord, apiKeysRepository } from './api-keys.repository.js';
import { API_KEY_ID_PREFIX, OAUTH_APP_ID_PREFIX } from './credentials.schemas.js';
import { type GrantRecord, type OAuthAppRecord, oauthRepository } from './oauth.repository.js';
import { assertClientSecretRef } from './oauth-secret-refs.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const apiKeyView = (k: ApiKeyRecord) => ({
  apiKeyId: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  lastUsedAt: iso(k.lastUsedAt),
  revokedAt: iso(k.revokedAt),
  expiresAt: iso(k.expiresAt),
  createdAt: k.createdAt.toISOString(),
});

const oauthAppView = (a: OAuthAppRecord) => ({
  oauthAppId: a.id,
  name: a.name,
  clientId: a.clientId,
  redirectUris: a.redirectUris,
  scopes: a.scopes,
  clientSecretSource: a.clientSecretRef ? ('reference' as const) : a.clientSecretHash ? ('stored_hash' as const) : ('none' as const),
  clientSecretRef: a.clientSecretRef,
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
});

const grantView = (g: GrantRecord) => ({
  authorizationId: g.id,
  oauthAppId: g.oauthAppId,
  clientId: g.clientId,
  appName: g.appName,
  userId: g.userId,
  scopes: g.scopes,
  createdAt: g.createdAt.toISOString(),
  revokedAt: iso(g.revokedAt),
});

/** A redirect URI: absolute, no fragment or credentials; https, or http only for loopback hosts (RFC 8252). */
export function isAllowedRedirectUri(uri: string): boolean {
  try {
    const u = new URL(uri);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
    return u.hash === '' && !u.username && !u.password && (u.protocol === 'https:' || (u.protocol === 'http:' && loopback));
  } catch {
    return false;
  }
}

function checkRedirectUris(uris: string[]): void {
  uris.forEach((uri, i) => {
    if (!isAllowedRedirectUri(uri))
      throw new AppError('invalid_credential_request', {
        message: 'Each redirect URI must be an absolute https URL without a fragment (http only for localhost).',
        fields: [{ path: ['redirectUris', String(i)], source: 'body' }],
      });
  });
}

function newClientSecret(): { secret: string; hash: string } {
  const { key, hash } = generateKey('ocs');
  return { secret: key, hash };
}

type ListQuery = { limit?: number; cursor?: string };

/** One page of a credential list, in id order: the cursor decoded, limit + 1 rows loaded, the extra one cut into nextCursor. */
async function listPage<R extends { id: string }, V>(
  q: ListQuery,
  load: (after: string | null, limit: number) => Promise<R[]>,
  view: (row: R) => V,
): Promise<{ data: V[]; nextCursor: string | null }> {
  const limit = q.limit ?? 50;
  const after = decodeCursor(q.cursor, {}, 'invalid_credential_query');
  const p = page(await load(after, limit), limit, (r) => r.id, {});
  return { data: p.data.map(view), nextCursor: p.nextCursor };
}

export class CredentialsService {
  constructor(private readonly deps: Pick<AppDeps, 'database' | 'clock'>) {}
  private get db() {
    return this.deps.database.db;
  }

  async listApiKeys(organizationId: string, q: ListQuery) {
    return listPage(q, (after, limit) => apiKeysRepository.listPage(this.db, organizationId, after, limit), apiKeyView);
  }

  async createApiKey(organizationId: string, userId: string, input: { name: string; scopes?: string[]; expiresAt?: string }) {
    const now = this.deps.clock.now();
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && !(expiresAt.getTime() > now.getTime()))
      throw new AppError('invalid_credential_request', {
        message: 'expiresAt must be in the future.',
        fields: [{ path: ['expiresAt'], source: 'body' }],
      });
    const { key, prefix, hash } = generateKey('sk');
    const id = newId(API_KEY_ID_PREFIX);
    const scopes = input.scopes ?? [...PUBLIC_SCOPES];
    await this.db.transaction().execute(async (tx) => {
      await apiKeysRepository.insert(tx, {
        id,
        organizationId,
        name: input.name.trim() || 'API key',
        prefix,
        secretHash: hash,
        scopes,
        createdByUserId: userId,
        expiresAt,
      });
    });
    const record = await apiKeysRepository.find(this.db, organizationId, id);
    return { apiKey: apiKeyView(record!), secret: key };
  }

  async revokeApiKey(organizationId: string, id: string) {
    const found = await apiKeysRepository.find(this.db, organizationId, id);
    if (!found) throw new AppError('api_key_not_found');
    await apiKeysRepository.revoke(this.db, organizationId, id, this.deps.clock.now());
  }

  async listApps(organizationId: string, q: ListQuery) {
    return listPage(q, (after, limit) => oauthRepository.listApps(this.db, organizationId, after, limit), oauthAppView);
  }

  async getApp(organizationId: string, id: string) {
    const app = await oauthRepository.findApp(this.db, organizationId, id);
    if (!app) throw new AppError('oauth_app_not_found');
    return oauthAppView(app);
  }

  /**
   * An app with a generated secret (answered once, stored as a hash). `operatorSecretRef` is the CLI's
   * (never a request's): a reference to an entry of SERVICE_OAUTH_CLIENT_SECRET_ENV_REFS, checked here.
   */
  async createApp(
    organizationId: string,
    input: { name: string; redirectUris: string[]; scopes: string[] },
    operatorSecretRef?: { ref: string; digests: Map<string, string> },
  ) {
    checkRedirectUris(input.redirectUris);
    if (operatorSecretRef) assertClientSecretRef(operatorSecretRef.ref, operatorSecretRef.digests);
    const clientSecretRef = operatorSecretRef?.ref ?? null;
    const at = this.deps.clock.now();
    const id = newId(OAUTH_APP_ID_PREFIX);
    const clientId = `client_${randomBytes(16).toString('base64url')}`;
    const generated = clientSecretRef ? null : newClientSecret();
    try {
      await this.db.transaction().execute((tx) =>
        oauthRepository.insertApp(tx, {
          id,
          organizationId,
          name: input.name.trim(),
          clientId,
          clientSecretHash: generated?.hash ?? null,
          clientSecretRef,
          redirectUris: input.redirectUris,
          scopes: input.scopes,
          at,
        }),
      );
    } catch (cause) {
      throw new AppError('oauth_authorization_write_failed', { message: 'The OAuth app could not be saved.', cause });
    }
    const app = await oauthRepository.findApp(this.db, organizationId, id);
    return { oauthApp: oauthAppView(app!), clientSecret: generated?.secret ?? null };
  }

  async updateApp(
    organizationId: string,
    id: string,
    input: { name?: string; redirectUris?: string[]; scopes?: string[]; rotateSecret?: boolean },
  ) {
    if (input.redirectUris) checkRedirectUris(input.redirectUris);
    const at = this.deps.clock.now();
    let secret: string | null = null;
    await this.db.transaction().execute(async (tx) => {
      const app = await oauthRepository.findApp(tx, organizationId, id, true);
      if (!app) throw new AppError('oauth_app_not_found');
      if (input.rotateSecret && app.clientSecretRef)
        throw new AppError('invalid_credential_request', {
          message: 'This app takes its secret from a reference; rotate it where the reference points.',
          fields: [{ path: ['rotateSecret'], source: 'body' }],
        });
      const generated = input.rotateSecret ? newClientSecret() : null;
      secret = generated?.secret ?? null;
      await oauthRepository.updateApp(
        tx,
        organizationId,
        id,
        { name: input.name?.trim(), redirectUris: input.redirectUris, scopes: input.scopes, clientSecretHash: generated?.hash },
        at,
      );
    });
    return { oauthApp: await this.getApp(organizationId, id), clientSecret: secret };
  }

  /** Deletes the app and revokes every grant and token issued to it. */
  async deleteApp(organizationId: string, id: string) {
    await this.db.transaction().execute(async (tx) => {
      if (!(await oauthRepository.findApp(tx, organizationId, id, true))) throw new AppError('oauth_app_not_found');
      await oauthRepository.deleteApp(tx, organizationId, id, this.deps.clock.now());
    });
  }

  async listGrants(organizationId: string, q: ListQuery) {
    return listPage(q, (after, limit) => oauthRepository.listGrants(this.db, organizationId, after, limit), grantView);
  }

  async revokeGrant(organizationId: string, id: string) {
    await this.db.transaction().execute(async (tx) => {
      if (!(await oauthRepository.findGrant(tx, organizationId, id))) throw new AppError('oauth_grant_not_found');
      await oauthRepository.revokeGrant(tx, organizationId, id, this.deps.clock.now());
    });
  }
}
