/**
 * One platform's API description as a judge of requests and answers. Routing, parameter and body
 * validation (ajv) and mock answers come from openapi-backend (a maintained OpenAPI 3 toolkit); this file
 * adds the two checks it leaves to the caller (the request's content type is one the operation declares;
 * the credential matches one of the operation's security requirements) and names every violation by its
 * operation and field ("body.media_category", "query.media_id", "header.authorization").
 */
import type { ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import type { ContractFiles, ContractSource } from './contract-files.js';

type HeaderValue = string | string[] | undefined;

/** A request as the platform receives it. */
export interface ContractRequest {
  method: string;
  /** the path as the platform's server sees it, including the description's base path ("/v5/pins", "/2/tweets"); may carry "?query" */
  path: string;
  /** the query, when not in `path` */
  query?: Record<string, string | string[]>;
  headers: Record<string, HeaderValue>;
  /**
   * the body, parsed: a JSON value, the fields of a form (application/x-www-form-urlencoded) or of a
   * multipart/form-data body (a file part as a string standing for its bytes); undefined when none was sent
   */
  body?: unknown;
}

export interface ContractViolation {
  /** the operation ("createPosts (POST /2/tweets)"), or "METHOD path" when the description has none */
  operation: string;
  /** where: "path", "body.media.media_ids", "query.max_results", "header.content-type", "header.authorization", "status" */
  field: string;
  message: string;
}

export interface RequestVerdict {
  /** the operation id of the description, null when no operation matches */
  operationId: string | null;
  /** "createPosts (POST /2/tweets)" */
  operation: string;
  violations: ContractViolation[];
}

export interface MockAnswer {
  status: number;
  body: unknown;
}

interface SecurityScheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
}

function header(headers: Record<string, HeaderValue>, name: string): string {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** "body.media.media_ids" from an ajv error over openapi-backend's {requestBody, query, path, header} object. */
function fieldOf(e: ErrorObject): string {
  const parts = e.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (e.keyword === 'required' && params.missingProperty) parts.push(params.missingProperty);
  if (e.keyword === 'additionalProperties' && params.additionalProperty) parts.push(params.additionalProperty);
  if (parts[0] === 'requestBody') parts[0] = 'body';
  return parts.join('.') || 'request';
}

function messageOf(e: ErrorObject): string {
  const params = e.params as { allowedValues?: unknown[]; additionalProperty?: string };
  if (e.keyword === 'enum' && params.allowedValues) return `must be one of ${params.allowedValues.slice(0, 12).join(', ')}`;
  if (e.keyword === 'additionalProperties') return 'is not a property the description allows';
  return e.message ?? e.keyword;
}

/** Removes repeats (ajv reports a oneOf/anyOf branch's errors once per branch). */
function unique(violations: ContractViolation[]): ContractViolation[] {
  const seen = new Set<string>();
  return violations.filter((v) => {
    const key = `${v.field}\n${v.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function mediaTypeMatches(declared: string, sent: string): boolean {
  if (declared === '*/*' || declared === sent) return true;
  const [type, sub] = declared.split('/');
  return sub === '*' && sent.startsWith(`${type}/`);
}

/**
 * Form and multipart fields arrive as text; OpenAPI describes them by the type they encode. Decodes a
 * numeric or boolean field the operation's body schema types so, and leaves everything else as sent, so
 * the schema still judges it.
 */
function decodeFormFields(op: Operation, mediaType: string, body: unknown): unknown {
  if (mediaType !== 'multipart/form-data' && mediaType !== 'application/x-www-form-urlencoded') return body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const content = (
    op.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> } | undefined
  )?.content;
  const properties = content?.[mediaType]?.schema?.properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    const type = properties[name]?.type;
    if (typeof value === 'string' && (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) out[name] = Number(value);
    else if (typeof value === 'string' && type === 'boolean' && (value === 'true' || value === 'false')) out[name] = value === 'true';
    else out[name] = value;
  }
  return out;
}

export class ApiContract {
  readonly name: string;
  readonly source: ContractSource;
  /** info.version of the description */
  readonly version: string;
  /** the path part of the description's first server URL ("/v5"; "" when the paths carry the version) */
  readonly basePath: string;
  private readonly api: OpenAPIBackend;
  private readonly schemes: Record<string, SecurityScheme>;
  private readonly globalSecurity: Array<Record<string, string[]>> | undefined;

  private constructor(files: ContractFiles, api: OpenAPIBackend, basePath: string) {
    const doc = files.document as {
      info?: { version?: string };
      components?: { securitySchemes?: Record<string, SecurityScheme> };
      security?: Array<Record<string, string[]>>;
    };
    this.name = files.name;
    this.source = files.source;
    this.version = doc.info?.version ?? 'unknown';
    this.basePath = basePath;
    this.api = api;
    this.schemes = doc.components?.securitySchemes ?? {};
    this.globalSecurity = doc.security;
  }

  static async load(files: ContractFiles): Promise<ApiContract> {
    const servers = (files.document as { servers?: Array<{ url: string }> }).servers ?? [];
    const basePath = new URL(servers[0]?.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    const api = new OpenAPIBackend({
      definition: files.document as never,
      apiRoot: basePath || '/',
      // quick: compile each operation's validators when it is first used (the descriptions hold hundreds)
      quick: true,
      // a trailing slash is part of the path (TikTok's paths end in one; /v5/pins/ is not /v5/pins)
      ignoreTrailingSlashes: false,
      validate: true,
      // code.optimize off: the validators are compiled on a simulator's request path, and ajv's optimizer
      // doubles the compile time of the large schemas (Pinterest's Pin) for little gain at run time
      ajvOpts: { strict: false, allErrors: true, logger: false, code: { optimize: false } },
      // the formats OpenAPI descriptions use (date-time, uri, email, ...), checked as JSON Schema defines them
      customizeAjv: (ajv) => {
        ajvFormats.default(ajv as never);
        return ajv;
      },
    });
    await api.init();
    return new ApiContract(files, api, basePath);
  }

  /** Every operation of the description ("METHOD /path" and its id). */
  operations(): Array<{ operationId: string; method: string; path: string }> {
    return this.api.getOperations().map((o) => ({ operationId: o.operationId ?? '', method: o.method.toUpperCase(), path: o.path }));
  }

  private label(op: Operation): string {
    return `${op.operationId} (${op.method.toUpperCase()} ${this.basePath}${op.path})`;
  }

  checkRequest(req: ContractRequest): RequestVerdict {
    const [pathOnly, queryString] = req.path.split('?', 2);
    const request = {
      method: req.method.toLowerCase(),
      path: pathOnly ?? '/',
      headers: Object.fromEntries(Object.entries(req.headers).filter((e): e is [string, string | string[]] => e[1] !== undefined)),
      query: req.query ?? queryString ?? '',
      body: req.body,
    };
    const op = this.api.matchOperation(request);
    if (!op) {
      const operation = `${req.method.toUpperCase()} ${pathOnly}`;
      return {
        operationId: null,
        operation,
        violations: [{ operation, field: 'path', message: 'no operation of the description has this method and path' }],
      };
    }
    const operation = this.label(op);
    const violations: ContractViolation[] = [];
    const mediaType = header(req.headers, 'content-type').split(';')[0]?.trim().toLowerCase() ?? '';
    request.body = decodeFormFields(op, mediaType, request.body);
    const result = this.compiled(operation, () => this.api.validateRequest(request, op));
    if ('violation' in result) violations.push(result.violation);
    else for (const e of result.errors ?? []) violations.push({ operation, field: fieldOf(e), message: messageOf(e) });
    const contentTypeViolation = this.checkContentType(op, req);
    if (contentTypeViolation) violations.push({ operation, field: 'header.content-type', message: contentTypeViolation });
    const authViolation = this.checkAuth(op, req, request.query);
    if (authViolation) violations.push({ operation, field: 'header.authorization', message: authViolation });
    return { operationId: op.operationId ?? null, operation, violations: unique(violations) };
  }

  private checkContentType(op: Operation, req: ContractRequest): string | null {
    const content = (op.requestBody as { content?: Record<string, unknown> } | undefined)?.content;
    if (!content || req.body === undefined) return null;
    const declared = Object.keys(content);
    const sent = header(req.headers, 'content-type').split(';')[0]?.trim().toLowerCase() ?? '';
    if (declared.some((d) => mediaTypeMatches(d.toLowerCase(), sent))) return null;
    return `${sent || 'no content type'} is not one of ${declared.join(', ')}`;
  }

  private checkAuth(op: Operation, req: ContractRequest, query: unknown): string | null {
    const requirements = (op.security as Array<Record<string, string[]>> | undefined) ?? this.globalSecurity;
    if (!requirements || requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0)) return null;
    const authorization = header(req.headers, 'authorization');
    const queryText = typeof query === 'string' ? query : new URLSearchParams(query as Record<string, string>).toString();
    const satisfied = (name: string): boolean => {
      const scheme = this.schemes[name];
      if (!scheme) return false;
      if (scheme.type === 'http') return authorization.toLowerCase().startsWith(`${(scheme.scheme ?? '').toLowerCase()} `);
      if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return /^bearer /i.test(authorization);
      if (scheme.type === 'apiKey' && scheme.name) {
        if (scheme.in === 'header') return header(req.headers, scheme.name.toLowerCase()) !== '';
        if (scheme.in === 'query') return new URLSearchParams(queryText).has(scheme.name);
        if (scheme.in === 'cookie') return header(req.headers, 'cookie').includes(`${scheme.name}=`);
      }
      return false;
    };
    if (requirements.some((r) => Object.keys(r).every(satisfied))) return null;
    const accepted = requirements.map((r) =>
      Object.keys(r)
        .map((n) => `${n} (${this.schemes[n]?.type ?? '?'}${this.schemes[n]?.scheme ? ` ${this.schemes[n]?.scheme}` : ''})`)
        .join(' + '),
    );
    return `the credential matches none of the operation's security schemes: ${accepted.join(' or ')}`;
  }

  /** Runs a validation; a schema of the description ajv cannot compile is a violation of its own (correct it in corrections.json). */
  private compiled<T>(operation: string, run: () => T): T | { violation: ContractViolation } {
    try {
      return run();
    } catch (err) {
      return {
        violation: { operation, field: 'description', message: `the description's schema does not compile: ${(err as Error).message}` },
      };
    }
  }

  /** Checks an answer (status and JSON body) against the operation's responses. */
  checkResponse(operationId: string, status: number, body: unknown): ContractViolation[] {
    const op = this.api.getOperation(operationId);
    if (!op) return [{ operation: operationId, field: 'operation', message: 'no such operation in the description' }];
    const operation = this.label(op);
    const responses = (op.responses ?? {}) as Record<string, unknown>;
    const declared = Object.keys(responses);
    const statusText = String(status);
    const covered = declared.some((s) => s === statusText || s === 'default' || s.toUpperCase() === `${statusText[0]}XX`);
    if (!covered)
      return [{ operation, field: 'status', message: `${status} is not one of the described answers (${declared.join(', ')})` }];
    const result = this.compiled(operation, () => this.api.validateResponse(body, op, status));
    if ('violation' in result) return [result.violation];
    return unique(
      (result.errors ?? []).map((e) => {
        const field = fieldOf(e);
        return { operation, field: field === 'request' ? 'response' : `response.${field}`, message: messageOf(e) };
      }),
    );
  }

  /** An answer made from the operation's examples and schemas (the first 2xx, or `status`). */
  mockResponse(operationId: string, status?: number): MockAnswer {
    const mock = this.api.mockResponseForOperation(operationId, status ? { code: status } : {});
    return { status: mock.status, body: mock.mock };
  }

  /** The operation a request goes to, or null. */
  operationOf(method: string, path: string): string | null {
    return this.api.matchOperation({ method: method.toLowerCase(), path: path.split('?')[0] ?? '/', headers: {} })?.operationId ?? null;
  }
}
