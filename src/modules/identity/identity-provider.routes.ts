/** Sign-in through the OpenID Connect provider (docs/sessions.md): is it configured, start, callback. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { parseCookies } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { AppError } from '../../platform/errors.js';
import type { AppDeps } from '../app-deps.js';
import { cookie, EXCHANGE_PATH, normalizedOrigin, requireApprovedOrigin, setSignedInCookies, validReturnTo } from './auth.routes.js';
import {
  IdentityProviderCallbackRequest,
  IdentityProviderCallbackResponse,
  IdentityProviderInfo,
  IdentityProviderStartRequest,
  IdentityProviderStartResponse,
} from './auth.schemas.js';
import { IDENTITY_PROVIDER_LOGIN_TTL_MS, type IdentityProviderSignIn } from './identity-provider.service.js';

const IDENTITY_PROVIDER_COOKIE = 'service_identity_provider_login';

export function registerIdentityProviderRoutes(root: FastifyInstance, deps: Pick<AppDeps, 'config'>, idp: IdentityProviderSignIn): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/auth/identity-provider',
    {
      schema: {
        operationId: 'getIdentityProvider',
        tags: ['Auth'],
        summary: 'Whether sign-in through an OpenID Connect provider is configured, and its name for the button',
        security: [],
        response: { 200: IdentityProviderInfo, ...errorResponses('internal_server_error') },
      },
    },
    async () => idp.info(),
  );

  app.post(
    '/v1/auth/identity-provider/start',
    {
      config: { validationCode: 'invalid_identity_provider_request' },
      schema: {
        operationId: 'startIdentityProviderSignIn',
        tags: ['Auth'],
        summary: 'Start a sign-in at the OpenID Connect provider: answer its authorization URL and set the login cookie',
        description:
          'Needs an approved dashboard Origin. Sends the browser to the provider with the authorization code flow, PKCE (S256), a state and a nonce; sets `service_identity_provider_login` (HttpOnly, SameSite=Lax, Path=/v1/auth, 10 minutes), which binds the login to this browser. 404 identity_provider_not_configured without SERVICE_OIDC_ISSUER and SERVICE_OIDC_CLIENT_ID; 503 when discovery fails.',
        security: [],
        body: IdentityProviderStartRequest,
        response: {
          200: IdentityProviderStartResponse,
          ...errorResponses(
            'invalid_identity_provider_request',
            'permission_denied',
            'identity_provider_not_configured',
            'service_unavailable',
            'internal_server_error',
          ),
        },
      },
    },
    async (request, reply) => {
      const origin = requireApprovedOrigin(deps, request);
      const returnTo = request.body.returnTo ?? null;
      if (returnTo !== null && !validReturnTo(deps, returnTo))
        throw new AppError('invalid_identity_provider_request', {
          message: 'returnTo must be a path or a URL on an approved dashboard origin.',
          fields: [{ path: ['returnTo'], source: 'body' }],
        });
      const r = await idp.start({ origin, returnTo });
      reply.header('cache-control', 'no-store');
      reply.header(
        'set-cookie',
        cookie(deps, IDENTITY_PROVIDER_COOKIE, r.binding, { path: EXCHANGE_PATH, maxAgeSeconds: IDENTITY_PROVIDER_LOGIN_TTL_MS / 1000 }),
      );
      return { authorizationUrl: r.authorizationUrl, expiresAt: r.expiresAt.toISOString() };
    },
  );

  app.post(
    '/v1/auth/identity-provider/callback',
    {
      config: { validationCode: 'invalid_identity_provider_request' },
      schema: {
        operationId: 'identityProviderCallback',
        tags: ['Auth'],
        summary: "Finish the provider sign-in with the redirect's code and state; answer and set the dashboard session like the exchange",
        description:
          "The dashboard page at the redirect URI posts the redirect's `code`, `state` (and `iss`) here, with the login cookie and the same Origin as the start. The service redeems the code with its PKCE verifier and validates the ID token (signature, issuer, audience, expiry, nonce). The person enters as the user linked to their provider account, else the user of their verified email (linked now), else a new member of the organization that lets their email domain join. Clears the login cookie and sets `service_dashboard_session`. An unknown, used or expired state, a missing cookie, another origin or a refused code or token: 400 identity_provider_sign_in_failed; no account and no joinable organization: 403 identity_provider_account_not_allowed.",
        security: [],
        body: IdentityProviderCallbackRequest,
        response: {
          200: IdentityProviderCallbackResponse,
          ...errorResponses(
            'invalid_identity_provider_request',
            'identity_provider_not_configured',
            'identity_provider_sign_in_failed',
            'identity_provider_account_not_allowed',
            'service_unavailable',
            'internal_server_error',
          ),
        },
      },
    },
    async (request, reply) => {
      const r = await idp.callback({
        code: request.body.code,
        state: request.body.state,
        ...(request.body.iss !== undefined ? { iss: request.body.iss } : {}),
        binding: parseCookies(request.headers.cookie)[IDENTITY_PROVIDER_COOKIE],
        origin: normalizedOrigin(request),
      });
      setSignedInCookies(deps, reply, IDENTITY_PROVIDER_COOKIE, r.token);
      return r.body;
    },
  );
}
