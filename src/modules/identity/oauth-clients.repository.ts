/**
 * Dynamically registered OAuth clients (RFC 7591): public clients with no organization. An organization
 * sees the ones its people consented to (through its grants) and can revoke them.
 */
import type { Executor } from '../database.js';
import { type OAuthAppRecord, oauthRepository, toApp } from './oauth.repository.js';

export interface ConnectedGrantRow {
  oauthAppId: string;
  clientId: string;
  name: string;
  redirectUris: string[];
  registeredAt: Date;
  authorizationId: string;
  userId: string;
  scopes: string[];
  grantedAt: Date;
}

/** A self-registered client nobody consented to within this time is deleted by the maintenance prune. */
const UNUSED_CLIENT_TTL_MS = 7 * 24 * 3_600_000;

export const oauthClientsRepository = {
  /** Deletes self-registered clients older than the TTL that no organization ever granted. */
  async deleteUnused(db: Executor, now: Date): Promise<number> {
    const r = await db
      .deleteFrom('oauth_apps')
      .where('registration', '=', 'dynamic')
      .where('created_at', '<', new Date(now.getTime() - UNUSED_CLIENT_TTL_MS))
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('oauth_authorizations as g').select('g.id').whereRef('g.oauth_app_id', '=', 'oauth_apps.id'))),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  async insertDynamicClient(
    db: Executor,
    c: { id: string; clientId: string; name: string; redirectUris: string[]; scopes: string[]; registeredFrom: string; at: Date },
  ): Promise<OAuthAppRecord> {
    const row = await db
      .insertInto('oauth_apps')
      .values({
        id: c.id,
        organization_id: null,
        registration: 'dynamic',
        registered_from: c.registeredFrom,
        name: c.name,
        client_id: c.clientId,
        client_secret_hash: null,
        client_secret_ref: null,
        redirect_uris: c.redirectUris,
        scopes: c.scopes,
        created_at: c.at,
        updated_at: c.at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toApp(row);
  },

  /** The organization's live grants of dynamically registered clients, by client. */
  async listConnectedGrants(db: Executor, organizationId: string): Promise<ConnectedGrantRow[]> {
    const rows = await db
      .selectFrom('oauth_authorizations as g')
      .innerJoin('oauth_apps as a', 'a.id', 'g.oauth_app_id')
      .select([
        'a.id as oauth_app_id',
        'a.client_id',
        'a.name',
        'a.redirect_uris',
        'a.created_at as registered_at',
        'g.id as authorization_id',
        'g.user_id',
        'g.scopes',
        'g.created_at as granted_at',
      ])
      .where('g.organization_id', '=', organizationId)
      .where('g.revoked_at', 'is', null)
      .where('a.registration', '=', 'dynamic')
      .orderBy('a.id')
      .orderBy('g.id')
      .limit(1000)
      .execute();
    return rows.map((r) => ({
      oauthAppId: r.oauth_app_id,
      clientId: r.client_id,
      name: r.name,
      redirectUris: r.redirect_uris,
      registeredAt: r.registered_at,
      authorizationId: r.authorization_id,
      userId: r.user_id,
      scopes: r.scopes,
      grantedAt: r.granted_at,
    }));
  },

  /** Revokes every grant (and its tokens) the organization gave this dynamic client; answers how many. */
  async revokeClientGrants(db: Executor, organizationId: string, oauthAppId: string, at: Date): Promise<number> {
    const grants = await db
      .selectFrom('oauth_authorizations as g')
      .innerJoin('oauth_apps as a', 'a.id', 'g.oauth_app_id')
      .select('g.id')
      .where('g.organization_id', '=', organizationId)
      .where('g.oauth_app_id', '=', oauthAppId)
      .where('g.revoked_at', 'is', null)
      .where('a.registration', '=', 'dynamic')
      .execute();
    for (const g of grants) await oauthRepository.revokeGrant(db, organizationId, g.id, at);
    return grants.length;
  },
};
