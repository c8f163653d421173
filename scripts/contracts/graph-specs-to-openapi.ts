/**
 * Builds an OpenAPI 3.0 document for the Graph API operations we call from Meta's own machine-readable
 * node specifications (facebook/facebook-business-sdk-codegen, api_specs/specs/*.json: each node's
 * fields and its edges with their parameters, types and enums), so the same OpenAPI validator judges
 * the Meta adapters as every other platform.
 *
 * Our own converter: no maintained package reads the codegen specs. The operations to describe are
 * listed in graph-operations.ts (path template, method, and the node/edge of the specs that define it).
 *
 * Mapping (the Graph API's wire conventions, https://developers.facebook.com/docs/graph-api/overview):
 * - a node read (`#get`) and an edge read take `fields`: a field expression whose top-level names must be
 *   fields of the node returned (nested expansions `picture{url}` and modifiers `.limit(5)` pass through);
 *   edge reads also take the cursor parameters `limit`, `after`, `before`;
 * - a write (`POST`) is a form body (application/x-www-form-urlencoded) whose properties are the edge's
 *   params; the token travels as `access_token` (query for GET/DELETE, form field for POST, or an
 *   `Authorization: Bearer` header); a write may ask for fields of the object it answers (read-after-write);
 * - a form or query value is text: a bool is `true`/`false`, a number its digits, a list either a JSON
 *   array or comma-separated values (each checked against the list's enum), an Object a JSON text;
 * - answers: Graph answers ids as strings, so an id the specs type `int` (IGUserForIGOnlyAPI.user_id) is
 *   a string of digits;
 * - an operation the specs omit (token endpoints, /pages/search, ...) is described by hand in
 *   graph-operations.ts with its reference page.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

type Json = Record<string, unknown>;

export interface SpecParam {
  name: string;
  type: string;
  required?: boolean;
}

interface SpecApi {
  name?: string;
  endpoint?: string;
  method: string;
  return: string;
  params: SpecParam[];
}

interface NodeSpec {
  apis: SpecApi[];
  fields: Array<{ name: string; type: string }>;
}

interface EnumType {
  name: string;
  values: string[];
}

export interface GraphOperation {
  method: 'GET' | 'POST' | 'DELETE';
  /** the path template after the version ("/{ig-user-id}/media") */
  path: string;
  operationId: string;
  /** the official reference page */
  reference: string;
  /** node specs defining it: "Page#get", "Page/feed", "Comment#update" (several: the same template serves several node types) */
  specs?: string[];
  /** parameters the specs omit, described by hand from the reference page */
  params?: SpecParam[];
  /** fields a hand-described read may ask for */
  fields?: string[];
  /** the answer's schema when the specs' node is not what the endpoint answers (tokens, success flags) */
  answer?: Json;
  /** another server for this path (api.instagram.com's token endpoint) */
  server?: string;
  /**
   * a correction of the specs' answer type, with its reason (the IG-only specs name types they do not
   * describe, or the Facebook comment node for Instagram comments)
   */
  returns?: { node: string; reason: string };
  /** false for the token endpoints, which authenticate with the app's credentials in the parameters */
  auth?: false;
}

export interface GraphDocumentInput {
  title: string;
  server: string;
  version: string;
  /** the vendored node specs (absent for a description written wholly by hand) */
  specsDir: string | null;
  /** what the document is built from, for info.description */
  origin: string;
  operations: GraphOperation[];
  /** enums of hand-described parameters, by type name */
  enums?: Record<string, string[]>;
}

const TRUE_FALSE = { type: 'string', enum: ['true', 'false'] };
const DIGITS = '-?[0-9]+';

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** "^(a|b)(,(a|b))*$": a comma list of the given values. */
function commaList(values: string[] | null): string {
  const item = values ? `(${values.map(escapeRegex).join('|')})` : '[^,]+';
  return `^${item}(,${item})*$`;
}

/** A Graph field expression whose top-level field names are among `fields`. */
export function fieldsPattern(fields: string[]): string {
  const name = `(${[...new Set(fields)].sort().map(escapeRegex).join('|')})`;
  const modifiers = '(\\.[a-z_]+\\([^()]*\\))*';
  const nested = '(\\{[^{}]*(\\{[^{}]*\\}[^{}]*)*\\})?';
  const item = `${name}${modifiers}${nested}`;
  return `^${item}(,${item})*$`;
}

class Specs {
  private readonly nodes = new Map<string, NodeSpec>();
  readonly enums = new Map<string, string[]>();

  get hasNodes(): boolean {
    return this.dir !== null;
  }

  constructor(
    private readonly dir: string | null,
    extraEnums: Record<string, string[]> = {},
  ) {
    if (dir) {
      const enums = JSON.parse(readFileSync(path.join(dir, 'enum_types.json'), 'utf8')) as EnumType[];
      for (const e of enums) this.enums.set(e.name, e.values);
    }
    for (const [name, values] of Object.entries(extraEnums)) this.enums.set(name, values);
  }

  node(name: string): NodeSpec {
    let spec = this.nodes.get(name);
    if (!spec) {
      if (!this.dir) throw new Error(`no node specs to read ${name} from`);
      spec = JSON.parse(readFileSync(path.join(this.dir, `${name}.json`), 'utf8')) as NodeSpec;
      this.nodes.set(name, spec);
    }
    return spec;
  }

  /** "Page/feed" with the method, or "Page#get" */
  api(ref: string, method: string): { api: SpecApi; node: string } {
    const [node, rest] = ref.includes('#') ? [ref.split('#')[0]!, `#${ref.split('#')[1]}`] : (ref.split('/') as [string, string]);
    const found = this.node(node).apis.find((a) => a.method === method && (rest.startsWith('#') ? a.name === rest : a.endpoint === rest));
    if (!found) throw new Error(`${ref} has no ${method} in the specs`);
    return { api: found, node };
  }

  /** whether the node has a vendored spec ("Object" and undescribed answer types have none) */
  known(node: string): boolean {
    return this.dir !== null && existsSync(path.join(this.dir, `${node}.json`));
  }

  /** the node's fields and, for field expansion (`picture{url}`), the names of its GET edges */
  fieldNames(node: string): string[] {
    if (!this.known(node)) return [];
    return [...this.node(node).fields.map((f) => f.name), ...this.edgeNames(node)];
  }

  edgeNames(node: string): string[] {
    if (!this.known(node)) return [];
    return this.node(node)
      .apis.filter((a) => a.method === 'GET' && a.endpoint)
      .map((a) => a.endpoint!);
  }
}

/** The wire schema of a form or query value of a spec type. */
function wireSchema(type: string, specs: Specs): Json {
  const list = /^list<(.+)>$/.exec(type);
  if (list || type === 'list') {
    const inner = list?.[1] ?? 'string';
    const values = specs.enums.get(inner) ?? null;
    return {
      anyOf: [
        {
          type: 'string',
          pattern:
            inner === 'Object' || inner.startsWith('list') || inner === 'map' ? '^\\[.*\\]$|^[^\\[]' : `^\\[.*\\]$|${commaList(values)}`,
        },
        { type: 'array', items: values ? { type: 'string', enum: values } : {} },
      ],
    };
  }
  const values = specs.enums.get(type);
  if (values) return { type: 'string', enum: values };
  switch (type) {
    case 'string':
    case 'file':
      return { type: 'string' };
    case 'bool':
      return { anyOf: [{ type: 'boolean' }, TRUE_FALSE] };
    case 'int':
    case 'unsigned int':
      return { anyOf: [{ type: 'integer' }, { type: 'string', pattern: `^${DIGITS}$` }] };
    case 'float':
      return { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' }] };
    case 'datetime':
      // a unix timestamp or an strtotime()-readable date
      return { anyOf: [{ type: 'integer' }, { type: 'string', minLength: 1 }] };
    default:
      // Object, map and node types travel as JSON text (or a parsed object)
      return { anyOf: [{ type: 'string', pattern: '^[{\\[]' }, { type: 'object' }] };
  }
}

/**
 * The answer schema of a node read: the node's fields (or edges, expanded), loosely typed; Graph answers
 * only the fields asked for. Several nodes sharing a path template answer the union of their fields.
 */
function nodeAnswer(specs: Specs, nodes: string[], extra: string[] = []): Json {
  // an answer type without a vendored spec is not judged
  if (nodes.some((n) => specs.hasNodes && !specs.known(n))) return { type: 'object' };
  const fields = nodes.flatMap((n) => (specs.known(n) ? specs.node(n).fields : []));
  const properties: Record<string, Json> = {};
  // a name several nodes (or an expanded edge) share with different types is not typed
  const put = (name: string, schema: Json) => {
    const had = properties[name];
    properties[name] = had === undefined || JSON.stringify(had) === JSON.stringify(schema) ? schema : {};
  };
  for (const f of fields) {
    if (f.type === 'string' || f.type === 'datetime') put(f.name, { type: 'string' });
    else if (f.type === 'bool') put(f.name, { type: 'boolean' });
    // an id typed int by the specs (IGUserForIGOnlyAPI.user_id) is answered as a string: Graph ids exceed 2^53
    else if (/(^|_)id$/.test(f.name) && /int$/.test(f.type)) put(f.name, { type: 'string', pattern: '^[0-9]+$' });
    else if (f.type === 'int' || f.type === 'unsigned int' || f.type === 'float') put(f.name, { type: 'number' });
    else if (f.type.startsWith('list')) put(f.name, { anyOf: [{ type: 'array' }, { type: 'object' }] });
    else put(f.name, {});
  }
  // expanded edges (picture{url}) answer an object whatever a field of that name is on another node
  for (const n of nodes) for (const edge of specs.edgeNames(n)) properties[edge] = {};
  for (const name of extra) properties[name] = {};
  if (!Object.keys(properties).length) return { type: 'object' };
  properties.id = { type: 'string' };
  return { type: 'object', properties, additionalProperties: false };
}

function answers(ok: Json): Json {
  return {
    '200': { description: 'OK', content: { 'application/json': { schema: ok } } },
    default: {
      description: 'Graph API error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/GraphError' } } },
    },
  };
}

const GRAPH_ERROR: Json = {
  description: 'The Graph API error body (https://developers.facebook.com/docs/graph-api/guides/error-handling)',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: 'integer' },
        error_subcode: { type: 'integer' },
        error_user_title: { type: 'string' },
        error_user_msg: { type: 'string' },
        is_transient: { type: 'boolean' },
        fbtrace_id: { type: 'string' },
      },
    },
  },
};

function merge(into: Map<string, { schema: Json; required: boolean }>, params: SpecParam[], specs: Specs, first: boolean) {
  const names = new Set(params.map((p) => p.name));
  for (const p of params) {
    const had = into.get(p.name);
    if (!had) into.set(p.name, { schema: wireSchema(p.type, specs), required: first && Boolean(p.required) });
    else if (!p.required) had.required = false;
  }
  // required only when every node type sharing the template requires it
  if (!first) for (const [k, v] of into) if (!names.has(k)) v.required = false;
}

function operation(op: GraphOperation, specs: Specs): Json {
  const params = new Map<string, { schema: Json; required: boolean }>();
  const returns: string[] = [];
  (op.specs ?? []).forEach((ref, i) => {
    const { api } = specs.api(ref, op.method);
    merge(params, api.params, specs, i === 0);
    returns.push(op.returns?.node ?? (ref.endsWith('#get') || ref.endsWith('#update') ? ref.split('#')[0]! : api.return));
  });
  if (op.params) merge(params, op.params, specs, !op.specs?.length);
  const fields = [...returns.flatMap((r) => specs.fieldNames(r)), ...(op.fields ?? [])];
  const isEdgeRead = op.method === 'GET' && (op.specs ?? []).some((r) => !r.includes('#'));
  const common: Array<[string, Json]> = [
    ['access_token', { type: 'string', minLength: 1 }],
    ['appsecret_proof', { type: 'string', pattern: '^[0-9a-f]{64}$' }],
  ];
  if (fields.length) common.push(['fields', { type: 'string', pattern: fieldsPattern(fields) }]);
  if (isEdgeRead) {
    common.push(
      ['limit', { type: 'string', pattern: '^[0-9]+$' }],
      ['after', { type: 'string', minLength: 1 }],
      ['before', { type: 'string', minLength: 1 }],
    );
  }
  for (const [name, schema] of common) if (!params.has(name)) params.set(name, { schema, required: false });

  const readAnswer = nodeAnswer(specs, [...new Set(returns)], op.fields);
  const ok =
    op.answer ??
    (op.method !== 'GET'
      ? { type: 'object' }
      : isEdgeRead || (!op.specs?.length && op.path.split('/').length > 3)
        ? {
            type: 'object',
            properties: { data: { type: 'array', items: readAnswer }, paging: { type: 'object' }, summary: { type: 'object' } },
            additionalProperties: false,
          }
        : readAnswer);
  const out: Json = {
    operationId: op.operationId,
    description: `${op.reference}${op.specs?.length ? ` (node specs: ${op.specs.join(', ')})` : ''}${op.returns ? `; answers ${op.returns.node}: ${op.returns.reason}` : ''}`,
    externalDocs: { url: op.reference },
    responses: answers(ok),
    security: op.auth === false ? [] : [{ accessTokenQuery: [] }, { bearer: [] }],
  };
  const pathParams = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  if (op.method === 'POST') {
    const properties = Object.fromEntries([...params].map(([k, v]) => [k, v.schema]));
    const required = [...params].filter(([, v]) => v.required).map(([k]) => k);
    out.parameters = pathParams;
    out.requestBody = {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false },
        },
      },
    };
    // the token may travel in the form body, which a security requirement cannot name: none is required
    // here and the body's `access_token` property, or a bearer header, carries it
    if (op.auth !== false) out.security = [{ accessTokenQuery: [] }, { bearer: [] }, {}];
  } else {
    out.parameters = [...pathParams, ...[...params].map(([name, v]) => ({ name, in: 'query', required: v.required, schema: v.schema }))];
  }
  return out;
}

export function graphSpecsToOpenApi(input: GraphDocumentInput): Json {
  const specs = new Specs(input.specsDir, input.enums);
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of input.operations) {
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = operation(op, specs);
    if (op.server) (paths[op.path] as Record<string, unknown>).servers = [{ url: op.server }];
  }
  return {
    openapi: '3.0.3',
    info: {
      title: input.title,
      version: input.version,
      description:
        `The operations the adapters call, built by scripts/contracts/graph-specs-to-openapi.ts from ${input.origin} ` +
        '(see source.json); every operation names its reference page.',
    },
    servers: [{ url: input.server }],
    paths,
    components: {
      schemas: { GraphError: GRAPH_ERROR },
      securitySchemes: {
        accessTokenQuery: { type: 'apiKey', in: 'query', name: 'access_token' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}
