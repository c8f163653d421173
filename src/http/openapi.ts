/**
 * OpenAPI 3.1.0 document generated from the route schemas (the same TypeBox schemas that validate
 * requests), served at /v1/openapi.json, with an interactive reference at /v1/docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOG, ERROR_CATALOG_VERSION } from '../platform/errors.js';

export const API_VERSION = '0.1.0';

interface OperationDoc {
  requestBody?: unknown;
  responses?: Record<string, unknown>;
}

/**
 * Answers every operation can give before its handler runs (the shared input rules, body parsing,
 * the HTTP layer), documented on each operation so generated clients know every status.
 */
function addSharedErrorResponses(op: OperationDoc, isTool: boolean): void {
  if (!op?.responses) return;
  const schema = { $ref: `#/components/schemas/${isTool ? 'ToolError' : 'ErrorResponse'}` };
  const add = (status: number, codes: string) => {
    if (op.responses![String(status)]) return;
    op.responses![String(status)] = { description: `Error codes: ${codes}.`, content: { 'application/json': { schema } } };
  };
  add(400, 'invalid_request (malformed path, query or body, text with U+0000)');
  if (op.requestBody) {
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  add(500, 'internal_server_error');
}

interface OptionalBody {
  required?: boolean;
  content?: Record<string, { schema?: { type?: unknown } }>;
}

const catalogTable = Object.entries(ERROR_CATALOG)
  .map(([code, e]) => `| ${e.status} | ${e.category} | \`${code}\` | ${e.message} |`)
  .join('\n');

export async function registerOpenApi(app: FastifyInstance, opts: { publicBaseUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'service-api',
        version: API_VERSION,
        description: [
          'Organization-scoped publishing API and tool API.',
          '',
          '**Rate limit headers** (every authenticated answer): `RateLimit-Limit`/`X-RateLimit-Limit` requests per window;',
          '`RateLimit-Remaining`/`X-RateLimit-Remaining`; `RateLimit-Reset` seconds until the window resets;',
          '`X-RateLimit-Reset` the reset time as Unix epoch seconds; `Retry-After` (429) seconds to wait.',
          '',
          '**Lists** take `limit` (1-100, default 50) and an opaque `cursor`; they answer `{data, nextCursor}`.',
          '',
          `**Errors** (catalog version ${ERROR_CATALOG_VERSION}):`,
          '',
          '| status | category | code | meaning |',
          '|---|---|---|---|',
          catalogTable,
        ].join('\n'),
        'x-error-catalog-version': ERROR_CATALOG_VERSION,
      } as never,
      servers: [{ url: opts.publicBaseUrl }],
      tags: [
        { name: 'System', description: 'Liveness, readiness, storage readiness and this document.' },
        { name: 'Auth' },
        { name: 'OAuth' },
        { name: 'Brands', description: 'Brands and their products.' },
        { name: 'Assets' },
        { name: 'Channels' },
        { name: 'Media' },
        { name: 'Agent' },
        { name: 'Provider Tools' },
        { name: 'Publishing' },
        { name: 'Analytics' },
        { name: 'Webhooks' },
        { name: 'Automations' },
        { name: 'Tools', description: 'Tool API (UTM builder, QR codes) under /api/v1/tools, with its own keys and error envelope.' },
      ],
      components: {
        securitySchemes: {
          publicBearer: {
            type: 'http',
            scheme: 'bearer',
            description: "API key or OAuth access token; public endpoints are scoped to the principal's organization.",
          },
          dashboardSession: {
            type: 'http',
            scheme: 'bearer',
            description: 'Legacy dashboard session compatibility; never sent through a URL.',
          },
          dashboardSessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'service_dashboard_session',
            description: 'Host-only HttpOnly dashboard session; credentialed requests with an approved Origin.',
          },
          internalServiceToken: {
            type: 'apiKey',
            in: 'header',
            name: 'x-service-internal-token',
            description: 'Internal operational routes; never exposed to browsers or third parties.',
          },
          servicePrincipalToken: {
            type: 'apiKey',
            in: 'header',
            name: 'x-service-principal-token',
            description: 'Policy-gated admin routes; never exposed to browsers or third parties.',
          },
          browserSessionExchangeCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'service_browser_session_exchange',
            description: 'Short-lived HttpOnly cookie used only with the browser-session exchange.',
          },
          toolApiKey: { type: 'http', scheme: 'bearer', description: 'Tool API key (Authorization: Bearer or X-API-Key header).' },
          toolApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Tool API key in the X-API-Key header.' },
        },
      },
    },
    // an operation whose body schema also accepts null takes no body at all: its requestBody is optional
    transformObject: (documentObject) => {
      const openapiObject = (documentObject as { openapiObject: unknown }).openapiObject;
      const doc = openapiObject as { paths?: Record<string, Record<string, { requestBody?: OptionalBody }>> };
      for (const [path, item] of Object.entries(doc.paths ?? {}))
        for (const op of Object.values(item)) {
          const body = op?.requestBody;
          const types = body?.content?.['application/json']?.schema?.type;
          if (body && Array.isArray(types) && types.includes('null')) body.required = false;
          addSharedErrorResponses(op as OperationDoc, path.startsWith('/api/v1/tools'));
        }
      return openapiObject as never;
    },
    refResolver: {
      // keep component names equal to the schemas' $id
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs', uiConfig: { deepLinking: true, tryItOutEnabled: true } });
  app.get(
    '/v1/openapi.json',
    {
      schema: { operationId: 'getOpenApiDocument', tags: ['System'], summary: 'This OpenAPI 3.1.0 document', security: [] },
    },
    async () => app.swagger(),
  );
}
