/**
 * SQL of the token endpoint's grant checks (oauth.service.ts). The token endpoint knows the client it
 * authenticated, not an organization (a self-registered client has none): a grant is read only with the
 * client's app id, and the organization comes with the grant.
 */
import type { Executor } from '../database.js';

export const oauthGrantsRepository = {
  /** The grant `authorizationId` when it was given to the app `oauthAppId`; null otherwise. */
  async grantOfApp(db: Executor, oauthAppId: string, authorizationId: string) {
    return (
      (await db
        .selectFrom('oauth_authorizations')
        .selectAll()
        .where('id', '=', authorizationId)
        .where('oauth_app_id', '=', oauthAppId)
        .executeTakeFirst()) ?? null
    );
  },

  /** Revokes one access token (a refresh token revokes its family: oauthRepository.revokeFamily). */
  async revokeToken(db: Executor, id: string, at: Date): Promise<void> {
    await db.updateTable('oauth_tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  },
};
