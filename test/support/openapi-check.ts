/**
 * Checks live answers against the OpenAPI document the app serves: the status must be documented for
 * the operation, the media type among that status's content, a JSON body valid against its schema
 * (ajv, draft 2020-12, closed where the document says additionalProperties: false) and every
 * rate-limit / request-id / replay / quota header documented for that response.
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { CHECKED_HEADERS } from '../../src/http/openapi-headers.js';

type Doc = { paths: Record<string, Record<string, Operation>> };
type Operation = {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
};

interface Answer {
  method: string;
  /** the route template as Fastify registered it (`/v1/brands/:brandId`) */
  route: string;
  status: number;
  headers: Record<string, unknown>;
  /** the serialized body, or null for a stream */
  body: string | Buffer | null;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function openApiChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(doc as object, 'openapi');
  const covered = new Set<string>();

  function check(a: Answer): string[] {
    const path = a.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const op = doc.paths[path]?.[a.method.toLowerCase()];
    if (!op || a.method === 'HEAD') return [];
    const where = `${a.method} ${path} ${a.status}`;
    const response = op.responses?.[String(a.status)];
    if (!response) return [`${where}: status not documented (${Object.keys(op.responses ?? {}).join(', ')})`];
    covered.add(`${op.operationId} ${a.status}`);
    const problems: string[] = [];
    const documentedHeaders = new Set(Object.keys(response.headers ?? {}).map((h) => h.toLowerCase()));
    for (const header of CHECKED_HEADERS)
      if (a.headers[header] !== undefined && !documentedHeaders.has(header)) problems.push(`${where}: header ${header} not documented`);
    const type = String(a.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const hasBody = a.body !== null && a.body.length > 0;
    if (!response.content) {
      if (hasBody) problems.push(`${where}: body ${type} where none is documented`);
      return problems;
    }
    if (!type) return hasBody ? [...problems, `${where}: body without a content type`] : problems;
    if (!response.content[type]) return [...problems, `${where}: content type ${type} not documented`];
    if (type !== 'application/json' || !hasBody) return problems;
    const validate = ajv.getSchema(
      `openapi#/${pointer('paths', path, a.method.toLowerCase(), 'responses', String(a.status), 'content', type, 'schema')}`,
    );
    if (!validate) return [...problems, `${where}: no schema`];
    const body = JSON.parse(String(a.body));
    if (!validate(body))
      problems.push(`${where}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${JSON.stringify(body).slice(0, 300)}`);
    return problems;
  }
  return { check, covered };
}

/** Checks every answer of the app (call before ready); `problems` collects what disagrees. */
export function installOpenApiCheck(app: FastifyInstance) {
  const problems: string[] = [];
  let checker: ReturnType<typeof openApiChecker> | null = null;
  const state = { problems, covered: () => checker?.covered ?? new Set<string>() };
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    if (!route) return payload;
    checker ??= openApiChecker(app.swagger() as unknown as Doc);
    const body = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : payload == null ? '' : null;
    problems.push(...checker.check({ method: request.method, route, status: reply.statusCode, headers: reply.getHeaders(), body }));
    return payload;
  });
  return state;
}
