/** OAuth apps, grants (authorizations), codes and tokens. Every secret column holds a sha256 digest. */
import type { Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { OauthAppsTable } from './auth.tables.js';

export interface OAuthAppRecord {
  id: string;
  /** null for a dynamically registered (public) client */
  organizationId: string | null;
  registration: 'dashboard' | 'dynamic';
  name: string;
  clientId: string;
  clientSecretHash: string | null;
  clientSecretRef: string | null;
  redirectUris: string[];
  scopes: string[];
  createdAt: Date;
  updatedAt: Date;
}

export const toApp = (r: Omit<Selectable<OauthAppsTable>, 'registered_from' | 'deleted_at'>): OAuthAppRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  registration: r.registration === 'dynamic' ? 'dynamic' : 'dashboard',
  name: r.name,
  clientId: r.client_id,
  clientSecretHash: r.client_secret_hash,
  clientSecretRef: r.client_secret_ref,
  redirectUris: r.redirect_uris,
  scopes: r.scopes,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface GrantRecord {
  id: string;
  organizationId: string;
  oauthAppId: string;
  clientId: string;
  appName: string;
  userId: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

export interface TokenRecord {
  id: string;
  kind: 'access' | 'refresh';
  authorizationId: string;
  familyId: string;
  codeHash: string | null;
  resource: string | null;
  scopes: string[];
  expiresAt: Date;
  consumedAt: Date | null;
  revokedAt: Date | null;
  replacedByPair: string | null;
}

export const oauthRepository = {
  async insertApp(
    db: Executor,
    a: Omit<OAuthAppRecord, 'createdAt' | 'updatedAt' | 'registration'> & { organizationId: string; at: Date },
  ) {
    await db
      .insertInto('oauth_apps')
      .values({
        id: a.id,
        organization_id: a.organizationId,
        name: a.name,
        client_id: a.clientId,
        client_secret_hash: a.clientSecretHash,
        client_secret_ref: a.clientSecretRef,
        redirect_uris: a.redirectUris,
        scopes: a.scopes,
        created_at: a.at,
        updated_at: a.at,
      })
      .execute();
  },

  async listApps(db: Executor, organizationId: string, after: string | null, limit: number): Promise<OAuthAppRecord[]> {
    const q = db.selectFrom('oauth_apps').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
    return (await keysetPage(q, 'id', after, limit).execute()).map(toApp);
  },

  async findApp(db: Executor, organizationId: string, id: string, forUpdate = false): Promise<OAuthAppRecord | null> {
    let q = db
      .selectFrom('oauth_apps')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null);
    if (forUpdate) q = q.forUpdate();
    const r = await q.executeTakeFirst();
    return r ? toApp(r) : null;
  },

  /** Client lookup of the OAuth endpoints: the one query before the organization is known (client ids are unique). */
  async findAppByClientId(db: Executor, clientId: string): Promise<OAuthAppRecord | null> {
    const r = await db
      .selectFrom('oauth_apps')
      .selectAll()
      .where('client_id', '=', clientId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return r ? toApp(r) : null;
  },

  async updateApp(
    db: Executor,
    organizationId: string,
    id: string,
    set: { name?: string; redirectUris?: string[]; scopes?: string[]; clientSecretHash?: string },
    at: Date,
  ) {
    await db
      .updateTable('oauth_apps')
      .set({
        ...(set.name !== undefined ? { name: set.name } : {}),
        ...(set.redirectUris !== undefined ? { redirect_uris: set.redirectUris } : {}),
        ...(set.scopes !== undefined ? { scopes: set.scopes } : {}),
        ...(set.clientSecretHash !== undefined ? { client_secret_hash: set.clientSecretHash } : {}),
        updated_at: at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
  },

  async deleteApp(db: Executor, organizationId: string, id: string, at: Date) {
    await db
      .updateTable('oauth_apps')
      .set({ deleted_at: at, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .execute();
    const grants = await db
      .selectFrom('oauth_authorizations')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('oauth_app_id', '=', id)
      .execute();
    for (const g of grants) await this.revokeGrant(db, organizationId, g.id, at);
  },

  async insertGrant(
    db: Executor,
    g: { id: string; organizationId: string; oauthAppId: string; userId: string; scopes: string[]; at: Date },
  ) {
    await db
      .insertInto('oauth_authorizations')
      .values({
        id: g.id,
        organization_id: g.organizationId,
        oauth_app_id: g.oauthAppId,
        user_id: g.userId,
        scopes: g.scopes,
        created_at: g.at,
      })
      .execute();
  },

  grantQuery(db: Executor, organizationId: string) {
    return db
      .selectFrom('oauth_authorizations as g')
      .innerJoin('oauth_apps as a', 'a.id', 'g.oauth_app_id')
      .select([
        'g.id',
        'g.organization_id',
        'g.oauth_app_id',
        'a.client_id',
        'a.name as app_name',
        'g.user_id',
        'g.scopes',
        'g.created_at',
        'g.revoked_at',
      ])
      .where('g.organization_id', '=', organizationId);
  },

  async listGrants(db: Executor, organizationId: string, after: string | null, limit: number): Promise<GrantRecord[]> {
    const q = this.grantQuery(db, organizationId);
    return (await keysetPage(q, 'g.id', after, limit).execute()).map(toGrant);
  },

  async findGrant(db: Executor, organizationId: string, id: string): Promise<GrantRecord | null> {
    const r = await this.grantQuery(db, organizationId).where('g.id', '=', id).executeTakeFirst();
    return r ? toGrant(r) : null;
  },

  /** A live grant of this user for this app whose scopes cover the requested ones (prompt=none). */
  async findLiveGrant(db: Executor, organizationId: string, oauthAppId: string, userId: string): Promise<GrantRecord[]> {
    const rows = await this.grantQuery(db, organizationId)
      .where('g.oauth_app_id', '=', oauthAppId)
      .where('g.user_id', '=', userId)
      .where('g.revoked_at', 'is', null)
      .execute();
    return rows.map(toGrant);
  },

  /** Revokes the grant and every token issued under it. */
  async revokeGrant(db: Executor, organizationId: string, id: string, at: Date): Promise<void> {
    await db
      .updateTable('oauth_authorizations')
      .set({ revoked_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    await db
      .updateTable('oauth_tokens')
      .set({ revoked_at: at })
      .where('authorization_id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  },

  async insertCode(
    db: Executor,
    c: {
      codeHash: string;
      authorizationId: string;
      redirectUri: string;
      codeChallenge: string;
      resource: string | null;
      scopes: string[];
      expiresAt: Date;
      at: Date;
    },
  ) {
    await db
      .insertInto('oauth_codes')
      .values({
        code_hash: c.codeHash,
        authorization_id: c.authorizationId,
        redirect_uri: c.redirectUri,
        code_challenge: c.codeChallenge,
        resource: c.resource,
        scopes: c.scopes,
        expires_at: c.expiresAt,
        created_at: c.at,
      })
      .execute();
  },

  async findCodeForUpdate(db: Executor, codeHash: string) {
    return (await db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).forUpdate().executeTakeFirst()) ?? null;
  },

  async consumeCode(db: Executor, codeHash: string, at: Date) {
    await db.updateTable('oauth_codes').set({ consumed_at: at }).where('code_hash', '=', codeHash).execute();
  },

  async insertToken(db: Executor, t: Omit<TokenRecord, 'consumedAt' | 'revokedAt' | 'replacedByPair'> & { tokenHash: string; at: Date }) {
    await db
      .insertInto('oauth_tokens')
      .values({
        id: t.id,
        token_hash: t.tokenHash,
        kind: t.kind,
        authorization_id: t.authorizationId,
        family_id: t.familyId,
        code_hash: t.codeHash,
        resource: t.resource,
        scopes: t.scopes,
        expires_at: t.expiresAt,
        created_at: t.at,
      })
      .execute();
  },

  async findToken(db: Executor, tokenHash: string, forUpdate = false): Promise<TokenRecord | null> {
    let q = db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash);
    if (forUpdate) q = q.forUpdate();
    const r = await q.executeTakeFirst();
    return r
      ? {
          id: r.id,
          kind: r.kind as 'access' | 'refresh',
          authorizationId: r.authorization_id,
          familyId: r.family_id,
          codeHash: r.code_hash,
          resource: r.resource,
          scopes: r.scopes,
          expiresAt: r.expires_at,
          consumedAt: r.consumed_at,
          revokedAt: r.revoked_at,
          replacedByPair: r.replaced_by_pair,
        }
      : null;
  },

  async consumeRefresh(db: Executor, id: string, at: Date, replacedByPair: string) {
    await db.updateTable('oauth_tokens').set({ consumed_at: at, replaced_by_pair: replacedByPair }).where('id', '=', id).execute();
  },

  async revokeFamily(db: Executor, familyId: string, at: Date) {
    await db
      .updateTable('oauth_tokens')
      .set({ revoked_at: at })
      .where('family_id', '=', familyId)
      .where('revoked_at', 'is', null)
      .execute();
  },

  async revokeByCode(db: Executor, codeHash: string, at: Date) {
    const fams = await db.selectFrom('oauth_tokens').select('family_id').where('code_hash', '=', codeHash).execute();
    for (const f of new Set(fams.map((x) => x.family_id))) await this.revokeFamily(db, f, at);
  },

  /** Authentication of an access token: the token with its grant and app (grant and app must be live). */
  async findAccessPrincipal(db: Executor, tokenHash: string) {
    return (
      (await db
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_authorizations as g', 'g.id', 't.authorization_id')
        .innerJoin('oauth_apps as a', 'a.id', 'g.oauth_app_id')
        .select([
          't.id',
          't.scopes',
          't.resource',
          't.expires_at',
          't.revoked_at',
          'g.id as authorization_id',
          'g.organization_id',
          'g.user_id',
          'g.revoked_at as grant_revoked_at',
          'a.id as oauth_app_id',
          'a.client_id',
          'a.deleted_at',
        ])
        .where('t.token_hash', '=', tokenHash)
        .where('t.kind', '=', 'access')
        .executeTakeFirst()) ?? null
    );
  },
};

const toGrant = (r: {
  id: string;
  organization_id: string;
  oauth_app_id: string;
  client_id: string;
  app_name: string;
  user_id: string;
  scopes: string[];
  created_at: Date;
  revoked_at: Date | null;
}): GrantRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  oauthAppId: r.oauth_app_id,
  clientId: r.client_id,
  appName: r.app_name,
  userId: r.user_id,
  scopes: r.scopes,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});
