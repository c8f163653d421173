/**
 * OpenAPI 3.1.0 document generated from the route schemas (the same TypeBox schemas that validate
 * requests), served at /v1/openapi.json, with an interactive reference at /v1/docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOG, ERROR_CATALOG_VERSION } from '../platform/errors.js';
import { addResponseHeaders, RESPONSE_HEADERS } from './openapi-headers.js';

const API_VERSION = '0.1.0';

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

type Schema = Record<string, unknown>;
const NAMED = 'x-named-body';

/**
 * Request and response bodies whose schema has an `$id` become `$ref`s to the component of that name:
 * wrapping them in a one-item `allOf` lets @fastify/swagger hoist them like nested `$id` schemas, and
 * `unwrapNamedBodies` then leaves the bare `$ref`. Only the document changes; validation uses the
 * route schemas as written.
 */
/**
 * A route's declared requirement, as extensions of its operation: `x-scope` (the public scope of
 * `config.auth`) and `x-policy` (the dashboard policy of `config.policy`). Readers and the shared
 * security tests learn from the document what each operation needs.
 */
function requirementExtensions(config: unknown): Schema {
  const c = config as { auth?: { scope?: string }; policy?: string } | undefined;
  return { ...(c?.auth?.scope ? { 'x-scope': c.auth.scope } : {}), ...(c?.policy ? { 'x-policy': c.policy } : {}) };
}

/**
 * `stashed` collects the flat (ref-free) schemas of bodies given per content type, by component name; each
 * app's document has its own.
 */
const nameBodies =
  (sharedSchemas: () => Record<string, unknown>, stashed: Map<string, Schema>) =>
  ({ schema, url, route }: { schema?: unknown; url: string; route?: { config?: unknown } }): { schema: Schema; url: string } => {
    const wrap = (s: unknown): unknown => {
      const body = s as Schema | undefined;
      if (!body || typeof body.$id !== 'string') return s;
      // a schema also registered with addSchema is referenced by its id, as nested refs are
      if (sharedSchemas()[body.$id]) return { $ref: body.$id, ...(body.description ? { description: body.description } : {}) };
      const types = body.type;
      // a body that also accepts null keeps its marker so the requestBody stays optional
      const nullable = (Array.isArray(types) && types.includes('null')) || body.nullable === true;
      return {
        allOf: [body],
        [NAMED]: true,
        ...(nullable ? { type: ['object', 'null'] } : {}),
        ...(body.description ? { description: body.description } : {}),
      };
    };
    // a body given per content type names each of them
    const wrapBody = (s: unknown): unknown => {
      const content = (s as Schema | undefined)?.content as Record<string, Schema> | undefined;
      if (!content) return wrap(s);
      const named: Record<string, Schema> = {};
      for (const [type, media] of Object.entries(content)) {
        const inner = media.schema as Schema | undefined;
        if (typeof inner?.$id !== 'string') named[type] = media;
        else {
          // per-content-type schemas are not hoisted by the resolver: keep them for transformObject
          stashed.set(inner.$id, inner);
          named[type] = { ...media, schema: { [NAMED]: inner.$id } };
        }
      }
      return { ...(s as Schema), content: named };
    };
    const routeSchema = schema as Schema;
    if (!routeSchema) return { schema: routeSchema, url };
    const out: Schema = { ...routeSchema, ...requirementExtensions(route?.config) };
    if (routeSchema.body) out.body = wrapBody(routeSchema.body);
    if (routeSchema.response) {
      const response: Schema = {};
      for (const [status, s] of Object.entries(routeSchema.response as Schema)) response[status] = wrapBody(s);
      out.response = response;
    }
    return { schema: out, url };
  };

function unwrapNamedBodies(
  op: OperationDoc,
  body: OptionalBody | undefined,
  components: Record<string, unknown>,
  stashed: Map<string, Schema>,
): void {
  const media = [
    ...Object.values(body?.content ?? {}),
    ...Object.values(op?.responses ?? {}).flatMap((r) => Object.values((r as OptionalBody).content ?? {})),
  ] as { schema?: Schema }[];
  for (const m of media) {
    const s = m.schema;
    if (s?.[NAMED] && Array.isArray(s.allOf) && s.allOf.length === 1) m.schema = s.allOf[0] as Schema;
    else if (typeof s?.[NAMED] === 'string') {
      const name = s[NAMED];
      const { $id: _id, ...raw } = stashed.get(name) ?? {};
      components[name] ??= JSON.parse(JSON.stringify(raw).replaceAll('"contentEncoding":"binary"', '"format":"binary"'));
      m.schema = { $ref: `#/components/schemas/${name}` };
    }
  }
}

interface OptionalBody {
  required?: boolean;
  content?: Record<string, { schema?: { type?: unknown } }>;
}

const catalogTable = Object.entries(ERROR_CATALOG)
  .map(([code, e]) => `| ${e.status} | ${e.category} | \`${code}\` | ${e.message} |`)
  .join('\n');

export async function registerOpenApi(app: FastifyInstance, opts: { publicBaseUrl: string }): Promise<void> {
  const stashed = new Map<string, Schema>();
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
        { name: 'Auth', description: 'Dashboard sign-in: browser sessions and the signed-in user.' },
        {
          name: 'OAuth',
          description: 'OAuth 2.1 authorization server for third-party apps (authorize, token, metadata, dynamic client registration).',
        },
        {
          name: 'MCP',
          description: 'The remote MCP endpoint /mcp (Streamable HTTP with OAuth sign-in) and its RFC 9728 protected resource metadata.',
        },
        { name: 'Brands', description: 'Brands and their products.' },
        { name: 'Assets', description: 'Generated assets of publish batches.' },
        { name: 'Channels', description: 'Social channel accounts of the organization: connect, list, update, disconnect.' },
        { name: 'Media', description: 'The media library: upload, import, list, read bytes, delete.' },
        { name: 'Agent', description: 'One-call publishing for agents: the plan in, a dry run or a job out.' },
        { name: 'Provider Tools', description: 'Platform capabilities and lookups (boards, categories, privacy options...).' },
        { name: 'Publishing', description: 'Publish plans, jobs, slots and batches.' },
        { name: 'Analytics', description: 'Post metrics snapshots and their sync.' },
        { name: 'Webhooks', description: 'Webhook endpoints and their deliveries.' },
        { name: 'Automations', description: 'Automation sources (RSS...) and their runs.' },
        { name: 'Developer credentials', description: 'API keys, OAuth apps and grants (dashboard session).' },
        { name: 'Social comments', description: 'Comments on published posts: sync, reply, hide, draft replies.' },
        { name: 'Operations', description: 'Internal operational routes.' },
        { name: 'Tools', description: 'Tool API (UTM builder, QR codes) under /api/v1/tools, with its own keys and error envelope.' },
      ],
      components: {
        headers: RESPONSE_HEADERS,
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
          // its own header scheme, so a generated client never sends the public sk_ key to the tool API
          toolApiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'Tool API key (tk_...), only for /api/v1/tools; `Authorization: Bearer <tool key>` is accepted too.',
          },
        },
      },
    },
    transform: nameBodies(() => app.getSchemas(), stashed) as never,
    // an operation whose body schema also accepts null takes no body at all: its requestBody is optional
    transformObject: (documentObject) => {
      const openapiObject = (documentObject as { openapiObject: unknown }).openapiObject;
      const doc = openapiObject as { paths?: Record<string, Record<string, { requestBody?: OptionalBody }>> };
      for (const [path, item] of Object.entries(doc.paths ?? {}))
        for (const op of Object.values(item)) {
          const body = op?.requestBody;
          const types = body?.content?.['application/json']?.schema?.type;
          if (body && Array.isArray(types) && types.includes('null')) body.required = false;
          unwrapNamedBodies(
            op as OperationDoc,
            body,
            (doc as { components: { schemas: Record<string, unknown> } }).components.schemas,
            stashed,
          );
          addSharedErrorResponses(op as OperationDoc, path.startsWith('/api/v1/tools'));
          addResponseHeaders(op as never, path.startsWith('/api/v1/tools'));
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
      schema: {
        operationId: 'getOpenApiDocument',
        tags: ['System'],
        summary: 'This OpenAPI 3.1.0 document',
        security: [],
        response: {
          200: {
            $id: 'OpenApiDocument',
            type: 'object',
            required: ['openapi', 'info', 'paths'],
            properties: {
              openapi: { type: 'string' },
              info: { type: 'object', additionalProperties: true },
              paths: { type: 'object', additionalProperties: true },
            },
            additionalProperties: true,
            description: 'An OpenAPI 3.1.0 document (https://spec.openapis.org/oas/v3.1.0).',
          },
        },
      },
    },
    async () => app.swagger(),
  );
}
