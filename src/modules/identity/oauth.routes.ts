/** The OAuth provider endpoints: RFC 8414 metadata, authorize (consent), token, RFC 7009 revocation. */
import { parse as parseQuery } from 'node:querystring';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePolicy, userActorOf } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { AppError } from '../../platform/errors.js';
import type { AuthorizeParams, OAuthService } from './oauth.service.js';

const tags = ['OAuth'];
const str = (description?: string) => Type.Optional(Type.String({ maxLength: 2048, description }));
const AuthorizeFields = {
  response_type: str('code'),
  client_id: str(),
  redirect_uri: str('Exactly one of the app’s registered redirect URIs.'),
  scope: str('Space-separated scopes (default: every scope of the app).'),
  state: str('Returned unchanged in the redirect.'),
  code_challenge: str('BASE64URL(SHA-256(code_verifier)).'),
  code_challenge_method: str('S256 (plain is refused).'),
  prompt: str('none: answer 302 at once when a grant covers the scopes; consent (default): describe the consent.'),
  resource: str(
    'RFC 8707: the API (the issuer; default for dashboard apps) or the MCP endpoint ({issuer}/mcp; default and only choice for dynamically registered clients). Tokens of one are refused by the other.',
  ),
};
const AuthorizeQuery = Type.Object(AuthorizeFields, { additionalProperties: true });
const AuthorizeApproval = Type.Object(
  { ...AuthorizeFields, approve: Type.Optional(Type.Boolean({ default: true, description: 'false: answer the access_denied redirect.' })) },
  { $id: 'OAuthAuthorizeApproval', additionalProperties: false },
);
const ConsentDescription = Type.Object(
  {
    client: Type.Object({ clientId: Type.String(), name: Type.String(), oauthAppId: Type.String() }, { additionalProperties: false }),
    organizationId: Type.String(),
    redirectUri: Type.String(),
    scopes: Type.Array(Type.String()),
    state: Type.Union([Type.String(), Type.Null()]),
    existingGrant: Type.Boolean({ description: 'A grant of this user already covers these scopes.' }),
    resource: Type.Union([Type.String(), Type.Null()], { description: 'The MCP endpoint, or null for the REST API.' }),
    registration: Type.Union([Type.Literal('dashboard'), Type.Literal('dynamic')], {
      description: 'dynamic: the client registered itself (RFC 7591); its name is self-asserted.',
    }),
  },
  { $id: 'OAuthConsent', additionalProperties: false },
);
const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
    refresh_token: Type.String(),
    scope: Type.String(),
  },
  { $id: 'OAuthTokenResponse', additionalProperties: false, description: 'RFC 6749 section 5.1.' },
);
const Metadata = Type.Object(
  { issuer: Type.String() },
  { $id: 'OAuthAuthorizationServerMetadata', additionalProperties: true, description: 'RFC 8414 authorization server metadata.' },
);
const security: Array<Record<string, string[]>> = [{ dashboardSessionCookie: [] }, { dashboardSession: [] }];
// client authentication (client_secret_basic or client_secret_post) is described per operation
const clientSecurity: Array<Record<string, string[]>> = [];

/** Form or JSON body as a flat string map; repeated parameters are refused (RFC 6749 section 3.2). */
function flatBody(body: unknown): Record<string, string | undefined> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new AppError('invalid_oauth_token_request', { message: 'The body must be a form or a JSON object.' });
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > 4096)
      throw new AppError('invalid_oauth_token_request', {
        message: `${k} must be a single string parameter.`,
        fields: [{ path: [k], source: 'body' }],
      });
    out[k] = v;
  }
  return out;
}

/** client_secret_basic (Authorization: Basic, form-encoded id and secret) or client_secret_post. */
function clientCredentials(
  request: FastifyRequest,
  body: Record<string, string | undefined>,
): { clientId?: string; clientSecret?: string } {
  const header = request.headers.authorization;
  if (header && /^Basic /i.test(header)) {
    if (body.client_secret !== undefined)
      throw new AppError('invalid_oauth_token_request', { message: 'Use one client authentication method.' });
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) throw new AppError('invalid_client');
    try {
      const clientId = decodeURIComponent(decoded.slice(0, i).replace(/\+/g, ' '));
      if (body.client_id !== undefined && body.client_id !== clientId) throw new AppError('invalid_client');
      return { clientId, clientSecret: decodeURIComponent(decoded.slice(i + 1).replace(/\+/g, ' ')) };
    } catch (e) {
      if (e instanceof AppError) throw e;
      throw new AppError('invalid_client');
    }
  }
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

function noStore(reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
}

/**
 * The start the token and revocation endpoints share: the feature on, the answer not cached, then the
 * client (Basic or post credentials) rate limited and authenticated.
 */
async function authenticateTokenClient(service: OAuthService, request: FastifyRequest, reply: FastifyReply) {
  service.assertEnabled();
  noStore(reply);
  const body = flatBody(request.body);
  const { clientId, clientSecret } = clientCredentials(request, body);
  if (!clientId) throw new AppError('invalid_client');
  await service.rateLimit(clientId);
  const client = await service.authenticateClient(clientId, clientSecret);
  return { body, client };
}

/** What the authorization page and its approval can answer besides success (the same checks run on both). */
const AUTHORIZE_ERRORS = errorResponses(
  'public_oauth_disabled',
  'oauth_app_not_found',
  'oauth_redirect_uri_not_registered',
  'invalid_public_oauth_authorize_request',
  'invalid_target',
  'dashboard_session_required',
  'permission_denied',
  'oauth_authorization_write_failed',
  'oauth_authorization_code_write_failed',
  'internal_server_error',
);

export function registerOAuthRoutes(root: FastifyInstance, service: OAuthService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(ConsentDescription);

  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        operationId: 'getOAuthAuthorizationServerMetadata',
        tags,
        summary: 'RFC 8414 authorization server metadata',
        security: [],
        response: { 200: Metadata, ...errorResponses('public_oauth_disabled') },
      },
    },
    async () => {
      service.assertEnabled();
      return service.metadata();
    },
  );

  app.get(
    '/v1/oauth/authorize',
    {
      config: { ...requirePolicy('developer.oauth_tokens.exchange'), validationCode: 'invalid_public_oauth_authorize_request' },
      schema: {
        operationId: 'describeOAuthAuthorization',
        tags,
        summary: 'Validate an authorization request and describe the consent to show',
        description:
          'Needs a signed-in admin. With prompt=none and a grant covering the scopes, answers 302 to redirect_uri with code, state and iss (RFC 9207); with prompt=none and no grant, 302 with error=consent_required.',
        security,
        querystring: AuthorizeQuery,
        response: {
          200: Type.Ref('OAuthConsent'),
          302: { type: 'null', description: 'Redirect to the client (prompt=none).' },
          ...AUTHORIZE_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const actor = userActorOf(request);
      const v = await service.validateAuthorize(actor.organizationId, request.query as AuthorizeParams);
      noStore(reply);
      const grant = await service.hasGrant(actor.organizationId, actor.userId, v);
      if ((request.query as AuthorizeParams).prompt === 'none') {
        const location = grant ? await service.approve(actor, v) : service.redirectTo(v, { error: 'consent_required' });
        return reply.code(302).header('location', location).send();
      }
      return {
        client: { clientId: v.app.clientId, name: v.app.name, oauthAppId: v.app.id },
        organizationId: actor.organizationId,
        redirectUri: v.redirectUri,
        scopes: v.scopes,
        state: v.state,
        existingGrant: grant !== null,
        resource: v.resource,
        registration: v.app.registration,
      };
    },
  );

  app.post(
    '/v1/oauth/authorize',
    {
      config: { ...requirePolicy('developer.oauth_tokens.exchange'), validationCode: 'invalid_public_oauth_authorize_request' },
      schema: {
        operationId: 'approveOAuthAuthorization',
        tags,
        summary: 'The signed-in admin approves (or denies) the authorization; answers where to send the browser',
        description: 'Creates the grant and a single-use authorization code (60 s). redirectTo carries code, state and iss.',
        security,
        body: AuthorizeApproval,
        response: {
          200: Type.Object({ redirectTo: Type.String() }, { $id: 'OAuthAuthorizeRedirect', additionalProperties: false }),
          ...AUTHORIZE_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const actor = userActorOf(request);
      const { approve, ...params } = request.body;
      const v = await service.validateAuthorize(actor.organizationId, params);
      noStore(reply);
      if (approve === false) return { redirectTo: service.redirectTo(v, { error: 'access_denied' }) };
      return { redirectTo: await service.approve(actor, v) };
    },
  );

  // the token and revocation endpoints take application/x-www-form-urlencoded (RFC 6749) or JSON
  root.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, parseQuery(body as string));
      } catch (e) {
        done(e as Error);
      }
    });
    const s = scope.withTypeProvider<TypeBoxTypeProvider>();
    s.post(
      '/v1/oauth/token',
      {
        config: { validationCode: 'invalid_oauth_token_request' },
        schema: {
          operationId: 'exchangeOAuthToken',
          tags,
          summary: 'Token endpoint: authorization_code (with PKCE code_verifier) or refresh_token',
          description:
            'Client authentication client_secret_basic or client_secret_post (dashboard apps) or none (dynamically registered public clients: client_id in the body); body form-encoded or JSON. resource (RFC 8707), when sent, must be the one of the grant. Refresh tokens rotate on every use; a reused one revokes its family (400 oauth_refresh_token_consumed) except within the grace window, which answers the same new pair. Limited per client (429).',
          security: clientSecurity,
          response: {
            200: TokenResponse,
            ...errorResponses(
              'public_oauth_disabled',
              'invalid_oauth_token_request',
              'invalid_client',
              'oauth_client_secret_unavailable',
              'oauth_authorization_code_invalid',
              'oauth_authorization_code_consumed',
              'oauth_refresh_token_invalid',
              'oauth_refresh_token_consumed',
              'invalid_target',
              'public_api_rate_limited',
              'oauth_access_token_write_failed',
              'oauth_refresh_token_write_failed',
              'internal_server_error',
            ),
          },
        },
      },
      async (request, reply) => {
        const { body, client } = await authenticateTokenClient(service, request, reply);
        if (body.grant_type === 'authorization_code') return service.exchangeCode(client, body);
        if (body.grant_type === 'refresh_token') return service.refresh(client, body);
        throw new AppError('invalid_oauth_token_request', {
          message: 'grant_type must be authorization_code or refresh_token.',
          fields: [{ path: ['grant_type'], source: 'body' }],
        });
      },
    );
    s.post(
      '/v1/oauth/revoke',
      {
        config: { validationCode: 'invalid_oauth_token_request' },
        schema: {
          operationId: 'revokeOAuthToken',
          tags,
          summary: 'RFC 7009 token revocation (a refresh token revokes its whole family)',
          security: clientSecurity,
          response: {
            200: { type: 'null', description: 'Revoked, or the token was unknown (RFC 7009 section 2.2).' },
            ...errorResponses(
              'public_oauth_disabled',
              'invalid_oauth_token_request',
              'invalid_client',
              'oauth_client_secret_unavailable',
              'public_api_rate_limited',
              'internal_server_error',
            ),
          },
        },
      },
      async (request, reply) => {
        const { body, client } = await authenticateTokenClient(service, request, reply);
        if (!body.token)
          throw new AppError('invalid_oauth_token_request', {
            message: 'token is required.',
            fields: [{ path: ['token'], source: 'body' }],
          });
        await service.revoke(client, body.token);
        return reply.code(200).send();
      },
    );
  });
}
