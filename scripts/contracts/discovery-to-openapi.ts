/**
 * Converts a Google API discovery document (https://developers.google.com/discovery/v1/reference/apis)
 * into an OpenAPI 3.0 document, so the same OpenAPI validator judges YouTube as every other platform.
 *
 * Our own small converter: the maintained npm package google-discovery-to-swagger emits Swagger 2.0 and
 * drops the media upload paths, which is where the YouTube adapter sends its largest requests.
 *
 * What it maps:
 * - every method of every resource (nested resources too) to `paths[/<path>][<httpMethod>]`, with the
 *   document's global parameters (alt, fields, key, access_token, ...) and the method's own parameters
 *   (`repeated` becomes an array, `enum` an enum, `required` required);
 * - `request.$ref` to an `application/json` request body, `response.$ref` to the 200 answer; every
 *   method answers the Google error body (`components.schemas.GoogleError`) otherwise;
 * - `mediaUpload.protocols.simple.path` to an upload path (POST) taking `uploadType` media, multipart or
 *   resumable, and the resumable protocol's second step (PUT with `upload_id`, described by the
 *   resumable upload guide, not by discovery) on the same path;
 * - schemas to `components.schemas`; an object with `properties` is closed (`additionalProperties:
 *   false`): Google answers 400 "Invalid JSON payload received. Unknown name" for unknown fields;
 * - formats: 64-bit integers travel as decimal strings (a pattern), google-datetime and date-time an
 *   RFC 3339 pattern, google-duration a pattern; int32 and byte keep a format openapi-backend knows;
 * - the upload path's answer: the resource (media, multipart) or, for the first step of a resumable
 *   upload, no body (the session URI is in Location).
 *
 * Usage: node --import tsx scripts/contracts/discovery-to-openapi.ts <discovery.json> <openapi.json>
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Json = Record<string, unknown>;

interface DiscoverySchema {
  type?: string;
  format?: string;
  $ref?: string;
  enum?: string[];
  items?: DiscoverySchema;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  description?: string;
  repeated?: boolean;
  required?: boolean;
  location?: string;
  default?: string;
  pattern?: string;
  readOnly?: boolean;
}

interface DiscoveryMethod {
  id: string;
  path: string;
  httpMethod: string;
  description?: string;
  parameters?: Record<string, DiscoverySchema>;
  request?: { $ref: string };
  response?: { $ref: string };
  scopes?: string[];
  mediaUpload?: { accept: string[]; maxSize?: string; protocols: { simple?: { path: string }; resumable?: { path: string } } };
}

interface DiscoveryResource {
  methods?: Record<string, DiscoveryMethod>;
  resources?: Record<string, DiscoveryResource>;
}

export interface DiscoveryDocument {
  id: string;
  title: string;
  version: string;
  revision: string;
  rootUrl: string;
  servicePath: string;
  documentationLink?: string;
  parameters: Record<string, DiscoverySchema>;
  schemas: Record<string, DiscoverySchema>;
  resources: Record<string, DiscoveryResource>;
  auth?: { oauth2?: { scopes?: Record<string, { description: string }> } };
}

const INTEGER_STRING = '^-?[0-9]+$';
const DURATION = '^-?[0-9]+(\\.[0-9]{1,9})?s$';
/** RFC 3339 date-time as a pattern: openapi-backend's ajv has no date-time format (it would only warn) */
const DATE_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$';

function schema(s: DiscoverySchema, forParameter = false): Json {
  if (s.$ref) return { $ref: `#/components/schemas/${s.$ref}` };
  // descriptions stay in the vendored discovery document: the converted one is for validation
  void forParameter;
  const out: Json = {};
  switch (s.type) {
    case 'string':
      out.type = 'string';
      if (s.format === 'int64' || s.format === 'uint64') out.pattern = INTEGER_STRING;
      else if (s.format === 'google-datetime' || s.format === 'date-time') out.pattern = DATE_TIME;
      else if (s.format === 'google-duration') out.pattern = DURATION;
      else if (s.format === 'byte') out.format = 'byte';
      else if (s.format === 'date') out.format = 'date';
      if (s.enum) out.enum = s.enum;
      if (s.pattern) out.pattern = s.pattern;
      break;
    case 'integer':
      out.type = 'integer';
      if (s.format === 'int32') out.format = 'int32';
      if (s.format === 'uint32') out.minimum = 0;
      break;
    case 'number':
      out.type = 'number';
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'array':
      out.type = 'array';
      out.items = s.items ? schema(s.items) : {};
      break;
    case 'object':
      out.type = 'object';
      if (s.properties) {
        out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, schema(v)]));
        out.additionalProperties = false;
      }
      if (s.additionalProperties) out.additionalProperties = schema(s.additionalProperties);
      break;
    case 'any':
    case undefined:
      break;
    default:
      throw new Error(`unknown discovery type ${s.type}`);
  }
  return out;
}

function parameter(name: string, p: DiscoverySchema): Json {
  const base = schema({ ...p, repeated: undefined }, true);
  const s = p.repeated ? { type: 'array', items: base } : base;
  return {
    name,
    in: p.location === 'path' ? 'path' : 'query',
    required: p.location === 'path' ? true : Boolean(p.required),
    schema: s,
    // repeated parameters repeat (part=a&part=b); YouTube also takes one comma-separated value
    ...(p.repeated ? { style: 'form', explode: true } : {}),
  };
}

function errorAnswer(): Json {
  return {
    description: 'Google API error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/GoogleError' } } },
  };
}

const GOOGLE_ERROR: Json = {
  description:
    'The Google JSON error body (https://cloud.google.com/apis/design/errors#http_mapping and ' +
    'https://developers.google.com/youtube/v3/docs/errors); not part of discovery documents.',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        status: { type: 'string' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['reason'],
            properties: {
              domain: { type: 'string' },
              reason: { type: 'string' },
              message: { type: 'string' },
              location: { type: 'string' },
              locationType: { type: 'string' },
            },
          },
        },
        details: { type: 'array', items: { type: 'object' } },
      },
    },
  },
};

function operation(doc: DiscoveryDocument, m: DiscoveryMethod, extra: Json[] = []): Json {
  const own = Object.entries(m.parameters ?? {}).map(([k, v]) => parameter(k, v));
  const global = Object.entries(doc.parameters).map(([k, v]) => parameter(k, v));
  const ownNames = new Set(own.map((p) => p.name));
  const op: Json = {
    operationId: m.id,
    ...(m.description ? { description: m.description } : {}),
    parameters: [...own, ...global.filter((p) => !ownNames.has(p.name as string)), ...extra],
    responses: {
      ...(m.response
        ? { '200': { description: 'OK', content: { 'application/json': { schema: schema({ $ref: m.response.$ref }) } } } }
        : { '204': { description: 'No content' } }),
      default: errorAnswer(),
    },
    security: m.scopes ? [{ oauth2: m.scopes }] : [],
  };
  if (m.request) {
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: schema({ $ref: m.request.$ref }) } },
    };
  }
  return op;
}

function uploadOperations(doc: DiscoveryDocument, m: DiscoveryMethod): Record<string, Json> {
  const accept = m.mediaUpload?.accept ?? [];
  const uploadType: Json = {
    name: 'uploadType',
    in: 'query',
    required: true,
    schema: { type: 'string', enum: ['media', 'multipart', 'resumable'] },
  };
  const start = operation(doc, m, []);
  start.operationId = `${m.id}.upload`;
  start.parameters = [...(start.parameters as Json[]).filter((p) => p.name !== 'uploadType'), uploadType];
  if (m.response) {
    start.responses = {
      ...(start.responses as Json),
      '200': {
        description: 'the resource (uploadType media or multipart), or no body and the session URI in Location (resumable)',
        headers: { Location: { schema: { type: 'string' } } },
        content: {
          'application/json': { schema: { anyOf: [schema({ $ref: m.response.$ref }), { type: 'string', maxLength: 0, nullable: true }] } },
        },
      },
    };
  }
  const metadata = m.request ? schema({ $ref: m.request.$ref }) : { type: 'object' };
  start.requestBody = {
    required: !m.request,
    content: {
      'application/json': { schema: metadata },
      'multipart/related': { schema: { type: 'string', format: 'binary' } },
      ...Object.fromEntries(accept.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
    },
  };
  const session: Json = {
    operationId: `${m.id}.upload.session`,
    description:
      'Second step of the resumable protocol: the bytes go to the session URI the first step answered in ' +
      'Location (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol).',
    parameters: [
      { name: 'uploadType', in: 'query', required: true, schema: { type: 'string', enum: ['resumable'] } },
      { name: 'upload_id', in: 'query', required: true, schema: { type: 'string', minLength: 1 } },
      ...Object.entries(m.parameters ?? {}).map(([k, v]) => ({ ...parameter(k, v), required: false })),
    ],
    requestBody: {
      required: true,
      content: Object.fromEntries(accept.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
    },
    responses: operation(doc, m).responses,
    security: start.security,
  };
  return { post: start, put: session };
}

function collect(resources: Record<string, DiscoveryResource>, out: DiscoveryMethod[] = []): DiscoveryMethod[] {
  for (const r of Object.values(resources)) {
    out.push(...Object.values(r.methods ?? {}));
    if (r.resources) collect(r.resources, out);
  }
  return out;
}

export function discoveryToOpenApi(doc: DiscoveryDocument): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const m of collect(doc.resources)) {
    const path = `/${m.path.replace(/^\//, '')}`;
    paths[path] ??= {};
    paths[path][m.httpMethod.toLowerCase()] = operation(doc, m);
    const simple = m.mediaUpload?.protocols.simple?.path;
    if (simple) paths[simple] = { ...(paths[simple] ?? {}), ...uploadOperations(doc, m) };
  }
  const scopes = Object.fromEntries(Object.entries(doc.auth?.oauth2?.scopes ?? {}).map(([k, v]) => [k, v.description]));
  return {
    openapi: '3.0.3',
    info: {
      title: doc.title,
      version: `${doc.version} (discovery revision ${doc.revision})`,
      description: `Converted from the discovery document ${doc.id} revision ${doc.revision} by scripts/contracts/discovery-to-openapi.ts.`,
    },
    servers: [{ url: doc.rootUrl.replace(/\/$/, '') }],
    paths,
    components: {
      schemas: {
        ...Object.fromEntries(Object.entries(doc.schemas).map(([k, v]) => [k, schema(v)])),
        GoogleError: GOOGLE_ERROR,
      },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
              tokenUrl: 'https://oauth2.googleapis.com/token',
              scopes,
            },
          },
        },
      },
    },
  };
}

if (process.argv[1]?.endsWith('discovery-to-openapi.ts')) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) throw new Error('usage: discovery-to-openapi.ts <discovery.json> <openapi.json>');
  const doc = JSON.parse(readFileSync(input, 'utf8')) as DiscoveryDocument;
  writeFileSync(output, `${JSON.stringify(discoveryToOpenApi(doc), null, 2)}\n`);
}
