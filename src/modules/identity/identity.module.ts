/** The identity area: sign-in, dashboard sessions and policies, developer credentials, the OAuth provider. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { DashboardAuthPort } from '../../http/dashboard-auth.js';
import type { AppDeps } from '../app-deps.js';
import type { PruneStep } from '../maintenance/maintenance.module.js';
import { registerAuthRoutes } from './auth.routes.js';
import { Authenticator } from './authenticate.js';
import { registerCredentialRoutes } from './credentials.routes.js';
import { CredentialsService } from './credentials.service.js';
import { IdentityService } from './identity.service.js';
import { identityProviderRepository } from './identity-provider.repository.js';
import { registerIdentityProviderRoutes } from './identity-provider.routes.js';
import { IdentityProviderSignIn } from './identity-provider.service.js';
import { identityRetentionRepository } from './identity-retention.repository.js';
import { registerInternalRoutes } from './internal.routes.js';
import { registerOAuthRoutes } from './oauth.routes.js';
import { OAuthService } from './oauth.service.js';
import { oauthClientsRepository } from './oauth-clients.repository.js';
import { registerOAuthRegistrationRoutes } from './oauth-registration.routes.js';
import { OAuthRegistrationService } from './oauth-registration.service.js';
import { dashboardPolicies } from './policies.js';
import { sessionsRepository } from './sessions.repository.js';
import { SessionService } from './sessions.service.js';
import { SignInService } from './sign-in.service.js';
import { type UsersReadPort as UsersPorts, usersReadPort } from './users.read.js';

export { parseScopes } from './identity.service.js';
/** What other areas may read of users: a user by email, a user's tier (also inside the caller's statement). */
export type UsersReadPort = Pick<UsersPorts, 'byEmail' | 'tierOf'>;
/** The tool API's user administration (writes): a user created with a membership tier, a tier changed. */
export type UsersAdminPort = Pick<UsersPorts, 'create' | 'setTier'>;

/** What identity provides to the app's auth hooks (http/public-auth.ts, http/dashboard-auth.ts). */
export interface IdentityRead {
  /** the public API's credential check (API keys and OAuth access tokens), the MCP endpoint's, and its in-process delegation */
  authenticator: Authenticator;
  /** the dashboard's and internal routes' policy check (sessions, roles, service tokens), installed by the app */
  dashboardAuth: DashboardAuthPort;
  sessions: SessionService;
  /** the tool API's users and their membership tiers */
  users: UsersReadPort;
}

export type IdentityPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'encryptor' | 'clock'>;

export interface IdentityModule extends AreaModule<IdentityRead> {
  /** subscribed by the root to maintenance's prune: expired dashboard sessions */
  pruneExpiredSessions: PruneStep;
  /** subscribed by the root to maintenance's prune: provider sign-ins past their 10 minutes */
  pruneExpiredIdentityProviderLogins: PruneStep;
  /** subscribed by the root to maintenance's prune: self-registered OAuth clients nobody consented to in 7 days */
  pruneUnusedClients: PruneStep;
  /** subscribed by the root to maintenance's prune: OAuth codes and tokens and sign-in exchange codes a day past expiry */
  pruneExpiredSecrets: PruneStep[];
  /** the tool API's user administration (the root hands it to the tools area) */
  usersAdmin: UsersAdminPort;
  /** organizations, members and API keys (the operator's commands: bootstrap, members, api-keys, organizations) */
  service: IdentityService;
  /** developer credentials: API keys and OAuth apps (the settings routes and the operator's `oauth-apps create`) */
  credentials: CredentialsService;
}

export function createIdentityModule(ports: IdentityPorts): IdentityModule {
  const credentials = new CredentialsService(ports);
  const oauth = new OAuthService(ports);
  const sessions = new SessionService(ports);
  const signIn = new SignInService(ports, sessions);
  const identityProvider = new IdentityProviderSignIn(ports, sessions);
  return {
    read: {
      authenticator: new Authenticator(ports),
      dashboardAuth: dashboardPolicies((token) => sessions.resolve(token)),
      sessions,
      users: usersReadPort,
    },
    usersAdmin: usersReadPort,
    service: new IdentityService(ports.database.db),
    credentials,
    jobs: [],
    pruneExpiredSessions: { name: 'expiredSessions', prune: sessionsRepository.deleteExpired },
    pruneExpiredIdentityProviderLogins: { name: 'expiredIdentityProviderLogins', prune: identityProviderRepository.deleteExpiredLogins },
    pruneUnusedClients: { name: 'unusedOAuthClients', prune: oauthClientsRepository.deleteUnused },
    pruneExpiredSecrets: [
      { name: 'oauth_codes', prune: identityRetentionRepository.pruneOAuthCodes },
      { name: 'oauth_tokens', prune: identityRetentionRepository.pruneOAuthTokens },
      { name: 'auth_exchange_codes', prune: identityRetentionRepository.pruneExchangeCodes },
    ],
    routes(app: FastifyInstance) {
      registerAuthRoutes(app, ports, sessions, signIn);
      registerIdentityProviderRoutes(app, ports, identityProvider);
      registerCredentialRoutes(app, credentials, () => app.forgetPublicCredentials());
      registerOAuthRoutes(app, oauth);
      registerOAuthRegistrationRoutes(app, oauth, new OAuthRegistrationService(ports));
      registerInternalRoutes(app, ports.database.db);
    },
  };
}
