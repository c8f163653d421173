/**
 * Reads the OpenAPI document at run time and builds malformed requests for every operation, so routes
 * added later are walked too. Each request must answer a 4xx with the route's envelope, in time.
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { TOOL_API_PREFIX } from '../../src/modules/tools/tool-envelope.js';
import type { TestContext } from '../support/harness.js';

export interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: { name: string; schema: Record<string, unknown> }[];
  bodyTypes: string[];
  bodySchema: Record<string, unknown> | null;
}

export interface MalformedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  label: string;
}

type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, any> } };

export async function readOperations(ctx: TestContext): Promise<{ doc: Doc; operations: Operation[] }> {
  const res = await ctx.app.inject({ url: '/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json() as Doc;
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = (op.parameters ?? []) as { in: string; name: string; schema?: Record<string, unknown> }[];
      const content = (op.requestBody?.content ?? {}) as Record<string, { schema?: Record<string, unknown> }>;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        bodyTypes: Object.keys(content),
        bodySchema: resolve(doc, content['application/json']?.schema ?? null),
      });
    }
  }
  return { doc, operations };
}

function resolve(doc: Doc, schema: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!schema) return null;
  const ref = schema.$ref as string | undefined;
  if (ref) return resolve(doc, doc.components?.schemas?.[ref.split('/').pop()!] ?? null);
  return schema;
}

/** A well-formed id that exists nowhere: prefix_ + 26 ULID characters. */
const NO_SUCH_ID = (prefix = 'xyz') => `${prefix}_01J0000000000000000000000Z`;

/** Fills path params with a valid-format id (of the prefix the schema pattern names, if any). */
export function fillPath(op: Operation, doc: Doc, override?: Record<string, string>): string {
  const params = (doc.paths[op.path]?.[op.method.toLowerCase()]?.parameters ?? []) as any[];
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (override?.[name] !== undefined) return override[name]!;
    const schema = params.find((p) => p.in === 'path' && p.name === name)?.schema ?? {};
    if (Array.isArray(schema.enum)) return encodeURIComponent(String(schema.enum[0]));
    const prefix = /^\^([a-z0-9]+)_/.exec(String(schema.pattern ?? ''))?.[1];
    return NO_SUCH_ID(prefix);
  });
}

export const MALFORMED_PATH_VALUES = [
  '%00',
  'brd_%00',
  'x'.repeat(90),
  'x'.repeat(300),
  '%E0%A4%A',
  '%ZZ',
  '%C0%AF',
  '..%2F..%2Fetc',
  'null',
  '-1',
  '1e309',
  '%F0%9F%92%A9',
  '%ED%A0%80',
  ' ',
];

export const MALFORMED_QUERY_VALUES = [
  '%00',
  'a%00b',
  '',
  '-1',
  '0',
  '1e309',
  '99999999999999999999999',
  'NaN',
  'true',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '%ED%A0%80',
  '%FF',
  'x'.repeat(5000),
];

export const STRANGE_BODIES: { label: string; type?: string; payload: string | Buffer }[] = [
  { label: 'text/plain', type: 'text/plain', payload: 'hello' },
  { label: 'xml', type: 'application/xml', payload: '<a/>' },
  { label: 'form', type: 'application/x-www-form-urlencoded', payload: 'a=1&b=2' },
  { label: 'no content-type', payload: '{"a":1}' },
  { label: 'empty json', type: 'application/json', payload: '' },
  { label: 'json array', type: 'application/json', payload: '[]' },
  { label: 'json number', type: 'application/json', payload: '42' },
  { label: 'json string', type: 'application/json', payload: '"x"' },
  { label: 'json null', type: 'application/json', payload: 'null' },
  { label: 'json true', type: 'application/json', payload: 'true' },
  { label: 'malformed json', type: 'application/json', payload: '{"a":' },
  { label: 'deep nesting', type: 'application/json', payload: `${'['.repeat(50_000)}${']'.repeat(50_000)}` },
  { label: 'deep object nesting', type: 'application/json', payload: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}` },
  {
    label: 'invalid utf-8',
    type: 'application/json',
    payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d]),
  },
  { label: 'nul key', type: 'application/json', payload: '{"a\\u0000":1}' },
  { label: 'lone surrogate', type: 'application/json', payload: '{"text":"\\ud800"}' },
  { label: 'proto', type: 'application/json', payload: '{"__proto__":{"x":1},"constructor":{"prototype":{"y":1}}}' },
  { label: 'json with charset latin1', type: 'application/json; charset=latin1', payload: '{}' },
  { label: 'multipart without boundary', type: 'multipart/form-data', payload: 'garbage' },
  {
    label: 'truncated multipart',
    type: 'multipart/form-data; boundary=XyZ',
    payload: '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n',
  },
  { label: 'multipart junk', type: 'multipart/form-data; boundary=XyZ', payload: '--XyZ\r\n\r\n--XyZ--' },
];

/** Values put into every property of a valid-looking body (one property at a time). */
export const STRANGE_VALUES: unknown[] = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '',
  'x'.repeat(100_000),
  -1,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER + 2,
  0.5,
  null,
  true,
  [],
  {},
  ['a\u0000'],
  { '\u0000': 1 },
  JSON.parse(`${'['.repeat(40)}1${']'.repeat(40)}`),
];

/** A body of the operation's schema where every required property gets a value of the right kind. */
export function skeletonBody(schema: Record<string, unknown> | null, doc: Doc): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const s = resolve(doc, schema) ?? {};
  const props = (s.properties ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, raw] of Object.entries(props)) {
    const p = resolve(doc, raw) ?? {};
    out[name] = sample(p, doc, name);
  }
  return out;
}

function sample(p: Record<string, unknown>, doc: Doc, name: string): unknown {
  if (Array.isArray(p.enum)) return p.enum[0];
  if (p.const !== undefined) return p.const;
  const alt = (p.anyOf ?? p.oneOf) as Record<string, unknown>[] | undefined;
  if (alt?.[0]) return sample(resolve(doc, alt[0]) ?? {}, doc, name);
  switch (p.type) {
    case 'string': {
      if (p.format === 'date-time') return '2031-01-01T00:00:00Z';
      if (p.format === 'uri') return 'https://example.com/x';
      const prefix = /^\^([a-z0-9]+)_/.exec(String(p.pattern ?? ''))?.[1];
      if (prefix) return NO_SUCH_ID(prefix);
      if (/Id$/.test(name)) return NO_SUCH_ID(name === 'brandId' ? 'brd' : 'xyz');
      return 'text';
    }
    case 'integer':
    case 'number':
      return typeof p.minimum === 'number' ? p.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'text';
  }
}

export function assertEnvelope(req: MalformedRequest, res: LightMyRequestResponse): void {
  const where = `${req.method} ${req.url.slice(0, 200)} [${req.label}] -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `expected 4xx: ${where}`);
  assert.match(String(res.headers['content-type']), /^application\/json/, `content type: ${where}`);
  const body = res.json() as Record<string, any>;
  assert.ok(res.headers['x-request-id'], `x-request-id: ${where}`);
  if (req.url.startsWith(TOOL_API_PREFIX)) {
    assert.equal(body.object, 'tool_api.error', `tool envelope: ${where}`);
    assert.equal(typeof body.error?.code, 'string', `tool envelope: ${where}`);
    assert.equal(typeof body.error?.message, 'string', `tool envelope: ${where}`);
  } else {
    assert.equal(typeof body.error, 'string', `envelope: ${where}`);
    assert.ok(typeof body.message === 'string' && body.message.length > 0, `envelope: ${where}`);
    assert.equal(body.requestId, res.headers['x-request-id'], `requestId: ${where}`);
  }
}

/** inject with a time limit: a hang fails the test instead of stalling it. */
export async function send(ctx: TestContext, req: MalformedRequest, ms = 10_000): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${req.method} ${req.url.slice(0, 200)} [${req.label}]`)), ms);
  });
  try {
    return await Promise.race([
      ctx.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, payload: req.payload }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The JSON types a property's schema admits (type, unions of types, literals), or null when it admits any. */
export function jsonTypesOf(schema: Record<string, unknown> | null, doc: Doc): Set<string> | null {
  const s = resolve(doc, schema);
  if (!s) return null;
  const types = new Set<string>();
  const add = (t: string) => {
    types.add(t);
    if (t === 'integer') types.add('number');
  };
  if (typeof s.type === 'string') add(s.type);
  else if (Array.isArray(s.type)) for (const t of s.type) add(String(t));
  const literals = [...(Array.isArray(s.enum) ? s.enum : []), ...(s.const !== undefined ? [s.const] : [])];
  for (const v of literals) add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (s.nullable === true) add('null');
  const branches = (s.anyOf ?? s.oneOf) as Record<string, unknown>[] | undefined;
  if (branches) {
    for (const b of branches) {
      const inner = jsonTypesOf(b, doc);
      if (!inner) return null;
      for (const t of inner) add(t);
    }
  }
  return types.size > 0 ? types : null;
}

/** One value of each JSON type, to put where the schema admits another. */
export const VALUES_BY_JSON_TYPE: Array<{ type: string; value: unknown }> = [
  { type: 'string', value: 'text' },
  { type: 'integer', value: 7 },
  { type: 'number', value: 0.5 },
  { type: 'boolean', value: false },
  { type: 'null', value: null },
  { type: 'array', value: [false] },
  { type: 'object', value: { a: 1 } },
];

/** A JSON value of objects and arrays `depth` levels deep. */
export function nestedValue(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}
