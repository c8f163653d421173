/** The identity area: sign-in, dashboard sessions and policies, developer credentials, the OAuth provider. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import { installDashboardAuth } from '../../http/dashboard-auth.js';
import { registerAuthRoutes } from './auth.routes.js';
import { registerCredentialRoutes } from './credentials.routes.js';
import { CredentialsService } from './credentials.service.js';
import { registerInternalRoutes } from './internal.routes.js';
import { registerOAuthRoutes } from './oauth.routes.js';
import { OAuthService } from './oauth.service.js';
import { registerWorkspaceRoutes } from './workspace.routes.js';

export function createIdentityModule(deps: AppDeps): AreaModule {
  const credentials = new CredentialsService(deps);
  const oauth = new OAuthService(deps);
  return {
    read: undefined,
    jobs: [],
    routes(app: FastifyInstance) {
      const sessions = installDashboardAuth(app, deps);
      registerAuthRoutes(app, deps, sessions);
      registerCredentialRoutes(app, credentials, () => app.forgetPublicCredentials());
      registerOAuthRoutes(app, oauth);
      registerInternalRoutes(app, deps);
      registerWorkspaceRoutes(app, deps);
    },
  };
}
