/**
 * RFC 7591 dynamic client registration (open, rate limited) and the dashboard's "Connected apps":
 * the dynamically registered clients the organization's people consented to, which an admin revokes.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requirePolicy, userActorOf } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { OAuthAppParams } from './credentials.schemas.js';
import type { OAuthService } from './oauth.service.js';
import type { OAuthRegistrationService, RegistrationRequest } from './oauth-registration.service.js';

const RegistrationBody = Type.Object(
  {
    redirect_uris: Type.Array(Type.String(), { description: 'https, or http on a loopback host (RFC 8252); matched exactly.' }),
    client_name: Type.Optional(Type.String({ description: 'Shown on the consent page, marked as self-asserted.' })),
    token_endpoint_auth_method: Type.Optional(Type.String({ description: 'none (the only method for registered clients).' })),
    grant_types: Type.Optional(Type.Array(Type.String())),
    response_types: Type.Optional(Type.Array(Type.String())),
    scope: Type.Optional(Type.String({ description: 'Space-separated public scopes the client may ask for (default: all).' })),
  },
  {
    $id: 'OAuthClientRegistrationRequest',
    additionalProperties: true,
    description: 'RFC 7591 client metadata; other metadata (client_uri, logo_uri, software_id, ...) is accepted and ignored.',
  },
);
const RegistrationAnswer = Type.Object(
  {
    client_id: Type.String(),
    client_id_issued_at: Type.Integer(),
    client_name: Type.String(),
    redirect_uris: Type.Array(Type.String()),
    grant_types: Type.Array(Type.String()),
    response_types: Type.Array(Type.String()),
    token_endpoint_auth_method: Type.Literal('none'),
    scope: Type.String(),
  },
  { $id: 'OAuthClientRegistration', additionalProperties: false, description: 'RFC 7591 section 3.2.1 client information.' },
);
const ConnectedClient = Type.Object(
  {
    oauthAppId: Type.String({ description: 'oap_<ULID>' }),
    clientId: Type.String(),
    name: Type.String({ description: 'The name the client registered itself with (self-asserted).' }),
    redirectUris: Type.Array(Type.String()),
    scopes: Type.Array(Type.String(), { description: 'The scopes of the organization’s live grants to it.' }),
    userIds: Type.Array(Type.String(), { description: 'The people who consented.' }),
    grants: Type.Integer(),
    registeredAt: Type.String({ format: 'date-time' }),
    connectedAt: Type.String({ format: 'date-time', description: 'The first live consent.' }),
  },
  { $id: 'OAuthConnectedClient', additionalProperties: false },
);
const ConnectedClientList = Type.Object(
  { data: Type.Array(Type.Ref('OAuthConnectedClient')) },
  { $id: 'OAuthConnectedClientList', additionalProperties: false },
);
const security: Array<Record<string, string[]>> = [{ dashboardSessionCookie: [] }, { dashboardSession: [] }];

export function registerOAuthRegistrationRoutes(root: FastifyInstance, oauth: OAuthService, service: OAuthRegistrationService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ConnectedClient);

  app.post(
    '/v1/oauth/register',
    {
      config: { validationCode: 'invalid_client_metadata' },
      schema: {
        operationId: 'registerOAuthClient',
        tags: ['OAuth'],
        summary: 'RFC 7591 dynamic client registration (public clients, for MCP)',
        description:
          'Open registration for public clients (token_endpoint_auth_method none; PKCE S256 is required at the authorization endpoint). A registered client belongs to no organization, receives tokens only for the MCP endpoint, and appears under "Connected apps" of each organization whose admin consents. Limited per client address (SERVICE_OAUTH_REGISTRATIONS_PER_HOUR).',
        security: [],
        body: RegistrationBody,
        response: {
          201: RegistrationAnswer,
          ...errorResponses(
            'public_oauth_disabled',
            'invalid_client_metadata',
            'invalid_redirect_uri',
            'public_api_rate_limited',
            'internal_server_error',
          ),
        },
      },
    },
    async (request, reply) => {
      oauth.assertEnabled();
      await service.rateLimit(request.ip);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await service.register(request.body as RegistrationRequest, request.ip));
    },
  );

  const manage = requirePolicy('developer.oauth_grants.manage');
  app.get(
    '/v1/oauth/connected-clients',
    {
      config: manage,
      schema: {
        operationId: 'listOAuthConnectedClients',
        tags: ['Developer credentials'],
        summary: 'MCP clients (dynamically registered) that people of the organization connected',
        security,
        response: {
          200: ConnectedClientList,
          ...errorResponses('dashboard_session_required', 'permission_denied', 'internal_server_error'),
        },
      },
    },
    async (request) => ({ data: await service.listConnected(userActorOf(request).organizationId) }),
  );
  app.delete(
    '/v1/oauth/connected-clients/:oauthAppId',
    {
      config: { ...manage, validationCode: 'invalid_credential_request' },
      schema: {
        operationId: 'revokeOAuthConnectedClient',
        tags: ['Developer credentials'],
        summary: 'Disconnect a client: revokes the organization’s grants to it and every token issued under them',
        security,
        params: OAuthAppParams,
        response: {
          204: { type: 'null', description: 'Disconnected.' },
          ...errorResponses(
            'invalid_credential_request',
            'oauth_app_not_found',
            'dashboard_session_required',
            'permission_denied',
            'internal_server_error',
          ),
        },
      },
    },
    async (request, reply) => {
      await service.revokeConnected(userActorOf(request).organizationId, request.params.oauthAppId);
      return reply.code(204).send();
    },
  );
}
