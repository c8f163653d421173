/** Sign-in, dashboard sessions and policies, developer credentials, the OAuth provider. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { installDashboardAuth } from '../../http/dashboard-auth.js';
import { registerAuthRoutes } from './auth.routes.js';
import { registerCredentialRoutes } from './credentials.routes.js';
import { CredentialsService } from './credentials.service.js';
import { registerInternalRoutes } from './internal.routes.js';
import { registerOAuthRoutes } from './oauth.routes.js';
import { OAuthService } from './oauth.service.js';
import { registerWorkspaceRoutes } from './workspace.routes.js';

export async function registerAuthModule(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const sessions = installDashboardAuth(app, deps);
  registerAuthRoutes(app, deps, sessions);
  registerCredentialRoutes(app, new CredentialsService(deps), () => app.forgetPublicCredentials());
  registerOAuthRoutes(app, new OAuthService(deps));
  registerInternalRoutes(app, deps);
  registerWorkspaceRoutes(app, deps);
}
