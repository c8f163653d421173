/**
 * The remote MCP endpoint: `/mcp` (Streamable HTTP) as an OAuth protected resource (RFC 9728 metadata
 * at /.well-known/oauth-protected-resource and .../mcp naming this service as the authorization
 * server). Every request: Host and Origin checked, then an access token issued for /mcp (RFC 8707)
 * required (401 with `WWW-Authenticate: Bearer resource_metadata="..."` otherwise), then the session of
 * the Mcp-Session-Id header, which must belong to the same grant. Tools run through the REST API in
 * process under the token's principal (mcp.module.ts), so scopes and organization scoping apply as to
 * any API call.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ApiFor } from '@service-api/mcp';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../http/principal.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { AppError, isAppError } from '../../platform/errors.js';
import type { McpGuards } from './mcp.guards.js';
import type { McpRuntime } from './mcp.runtime.js';
import type { McpSessions } from './mcp.sessions.js';

/** The scopes the tools use; MCP clients ask for these (RFC 9728 scopes_supported). */
const MCP_SCOPES = [
  'brands:read',
  'channels:read',
  'media:read',
  'media:write',
  'publish:read',
  'publish:write',
  'comments:read',
  'comments:write',
  'analytics:read',
  'analytics:write',
];

const ResourceMetadata = Type.Object(
  {
    resource: Type.String(),
    authorization_servers: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    bearer_methods_supported: Type.Array(Type.String()),
    resource_name: Type.String(),
    resource_documentation: Type.String(),
  },
  { $id: 'OAuthProtectedResourceMetadata', additionalProperties: false, description: 'RFC 9728 protected resource metadata.' },
);

export interface McpRouteDeps {
  publicBaseUrl: string;
  guards: McpGuards;
  sessions: McpSessions;
  authenticateMcp(token: string): Promise<Principal>;
  /** the MCP SDK and the tools, loaded on first use */
  runtime(): Promise<McpRuntime>;
  apiFor: ApiFor;
}

function bearer(request: FastifyRequest): string | null {
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(request.headers.authorization ?? '');
  return m ? m[1]! : null;
}

export function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): void {
  let mcp: McpRuntime | null = null;
  const base = deps.publicBaseUrl;
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`;
  const metadata = () => ({
    resource: `${base}/mcp`,
    authorization_servers: [base],
    scopes_supported: MCP_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'service-api MCP endpoint',
    resource_documentation: `${base}/v1/docs`,
  });
  for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    app.get(
      url,
      {
        schema: {
          operationId: url.endsWith('/mcp') ? 'getMcpProtectedResourceMetadata' : 'getOAuthProtectedResourceMetadata',
          tags: ['MCP'],
          summary: 'RFC 9728 metadata of the MCP endpoint: its resource URL and authorization server',
          security: [],
          response: { 200: ResourceMetadata },
        },
      },
      async () => metadata(),
    );
  }

  const challenge = (error?: string) => `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${metadataUrl}"`;
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    schema: {
      tags: ['MCP'],
      summary: 'The MCP endpoint (Streamable HTTP, JSON-RPC); OAuth access token issued for it (RFC 8707 resource {base}/mcp)',
      hide: true,
      response: errorResponses(
        'request_origin_not_allowed',
        'mcp_origin_not_allowed',
        'public_api_token_required',
        'public_api_token_forbidden',
        'mcp_session_not_found',
        'invalid_request',
      ),
    },
    // before the body is read: a request from a wrong Host or Origin gets no further
    onRequest: async (request) => deps.guards.check(request),
    handler: async (request, reply) => {
      const token = bearer(request);
      if (!token)
        throw new AppError('public_api_token_required', {
          message: `Sign in with OAuth: the metadata at ${metadataUrl} names the authorization server.`,
          headers: { 'www-authenticate': challenge() },
        });
      let principal: Principal;
      try {
        principal = await deps.authenticateMcp(token);
      } catch (err) {
        if (isAppError(err) && err.code === 'public_api_token_forbidden')
          throw new AppError('public_api_token_forbidden', {
            message: err.message,
            headers: { 'www-authenticate': challenge('invalid_token') },
          });
        throw err;
      }
      const binding = principal.kind === 'oauth_access_token' ? principal.authorizationId : principal.subjectId;
      const sessionId = request.headers['mcp-session-id'];
      let transport: StreamableHTTPServerTransport;
      if (typeof sessionId === 'string') {
        const session = deps.sessions.find(sessionId, binding);
        if (!session) throw new AppError('mcp_session_not_found');
        transport = session.transport;
      } else {
        // the SDK loads with the first request that may start a session
        if (request.method === 'POST') mcp ??= await deps.runtime();
        const runtime = request.method === 'POST' ? mcp : null;
        if (!runtime?.isInitializeRequest(request.body)) {
          throw new AppError('invalid_request', { message: 'Start a session with an initialize request (without Mcp-Session-Id).' });
        }
        const server = runtime.createMcpServer(runtime.tools, deps.apiFor);
        const created: StreamableHTTPServerTransport = new runtime.Transport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id: string): void => deps.sessions.add(id, { transport: created, server, binding }),
          onsessionclosed: (id) => deps.sessions.forget(id),
        });
        await server.connect(created);
        transport = created;
      }
      const auth: AuthInfo = {
        token,
        clientId: principal.kind === 'oauth_access_token' ? principal.clientId : principal.subjectId,
        scopes: principal.scopes,
        extra: { principal },
      };
      (request.raw as IncomingMessage & { auth?: AuthInfo }).auth = auth;
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  });
}
