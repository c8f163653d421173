/**
 * Validation failures as `fields`: one entry per problem, each naming what is allowed (the enum values,
 * the bounds, the missing or unknown property and the properties allowed there).
 *
 * Requests are validated with ajv's first-error mode (allErrors is a memory risk on a large body of
 * failing items); on a failure, an input of at most REVALIDATE_MAX_BYTES is validated again with every
 * error. A union (anyOf) that fails is reported once: enum-like unions as one entry listing the allowed
 * values, unions of shapes by the errors of the branch that came closest (each branch validated on its
 * own), never as one entry per branch and per branch error.
 */
import { createRequire } from 'node:module';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { FieldIssue } from '../platform/errors.js';
import { formatsPlugin } from './input-guards.js';
import { AJV_CUSTOM_OPTIONS, coercionOf } from './validator.js';

/** Inputs (JSON text size) validated a second time with every error. */
const REVALIDATE_MAX_BYTES = 64 * 1024;
/** At most this many fields in one answer. */
const MAX_FIELDS = 50;

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  schema?: unknown;
  parentSchema?: Record<string, unknown>;
  data?: unknown;
}
type Validate = ((data: unknown) => boolean) & { errors?: AjvError[] | null };
type Compile = (schema: object) => Validate;

type ValidationField = FieldIssue;

const SOURCES: Record<string, FieldIssue['source']> = { body: 'body', querystring: 'query', params: 'params' };
const PARTS: Record<string, 'body' | 'querystring' | 'params'> = { body: 'body', querystring: 'querystring', params: 'params' };

const compilers = new WeakMap<FastifyInstance, Map<string, Compile>>();
const validators = new WeakMap<Compile, WeakMap<object, Validate | null>>();

/**
 * A second ajv (every error, verbose) with the app's shared schemas and the same formats and options,
 * converting types only where the request validator does (query strings and path parameters).
 */
function compilerOf(app: FastifyInstance, part: string): Compile {
  let byCoercion = compilers.get(app);
  if (!byCoercion) {
    byCoercion = new Map();
    compilers.set(app, byCoercion);
  }
  const coerceTypes = coercionOf(part);
  const key = String(coerceTypes);
  let compile = byCoercion.get(key);
  if (compile) return compile;
  const compilerRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const AjvCompiler = compilerRequire('@fastify/ajv-compiler') as () => (
    externals: Record<string, unknown>,
    opts: { customOptions: Record<string, unknown>; plugins: unknown[] },
  ) => (o: { schema: object }) => Validate;
  const build = AjvCompiler()(app.getSchemas(), {
    customOptions: { ...AJV_CUSTOM_OPTIONS, coerceTypes, allErrors: true, verbose: true },
    plugins: [formatsPlugin],
  });
  compile = (schema) => build({ schema });
  byCoercion.set(key, compile);
  return compile;
}

function validatorOf(compile: Compile, schema: object): Validate | null {
  let cache = validators.get(compile);
  if (!cache) {
    cache = new WeakMap();
    validators.set(compile, cache);
  }
  if (cache.has(schema)) return cache.get(schema) ?? null;
  let v: Validate | null = null;
  try {
    v = compile(schema);
  } catch {
    v = null;
  }
  cache.set(schema, v);
  return v;
}

const jsonSize = (value: unknown): number => {
  try {
    return JSON.stringify(value ?? null).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
};

/** Every error of `schema` on a copy of `data` (validation coerces and fills defaults in place), or null. */
function allErrorsOf(compile: Compile | null, schema: unknown, data: unknown): AjvError[] | null {
  if (!compile || !schema || typeof schema !== 'object' || jsonSize(data) > REVALIDATE_MAX_BYTES) return null;
  const validate = validatorOf(compile, schema);
  if (!validate) return null;
  try {
    return validate(structuredClone(data)) ? [] : [...(validate.errors ?? [])];
  } catch {
    // data the second run cannot walk (the parser bounds nesting, so this is a last resort): the first run's errors
    return null;
  }
}

const segments = (pointer: string) =>
  pointer
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
const within = (path: string, base: string) => base === '' || path === base || path.startsWith(`${base}/`);
const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const list = (values: unknown[]) => values.map(show).join(', ');

/** One error as a field: path (with the missing or unknown property), message naming what is allowed. */
function toField(e: AjvError, prefix: string[]): ValidationField {
  const path = [...prefix, ...segments(e.instancePath)];
  const p = e.params;
  const parent = e.parentSchema ?? {};
  switch (e.keyword) {
    case 'required':
      return { path: [...path, String(p.missingProperty)], source: 'body', message: 'is required' };
    case 'additionalProperties': {
      const allowed = Object.keys((parent.properties as Record<string, unknown> | undefined) ?? {});
      return {
        path: [...path, String(p.additionalProperty)],
        source: 'body',
        message: allowed.length > 0 ? `is not allowed here (allowed: ${allowed.join(', ')})` : 'is not allowed here',
        allowed,
      };
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]) ?? [];
      return { path, source: 'body', message: `must be one of: ${list(allowed)}`, allowed };
    }
    case 'const':
      return { path, source: 'body', message: `must be ${show(p.allowedValue)}`, allowed: [p.allowedValue] };
    case 'pattern':
      return {
        path,
        source: 'body',
        message: typeof parent.description === 'string' ? `must have the form ${parent.description}` : (e.message ?? 'is not valid'),
      };
    case 'format':
      return {
        path,
        source: 'body',
        message:
          p.format === 'date-time'
            ? 'must be an RFC 3339 date-time with a time zone (e.g. 2026-01-31T09:30:00Z), years 1900-2999'
            : (e.message ?? 'is not valid'),
      };
    default:
      return { path, source: 'body', message: e.message ?? 'is not valid' };
  }
}

const SHALLOW = new Set(['type', 'const', 'enum']);

/** Fields of one validation run, unions condensed (see the module comment). */
function condense(errors: AjvError[], prefix: string[], compile: Compile | null, depth = 0): ValidationField[] {
  const drop = new Set<number>();
  const replacements = new Map<number, ValidationField[]>();
  for (let i = 0; i < errors.length; i++) {
    const union = errors[i]!;
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') continue;
    // its branch errors: the run just before it, inside its instance
    let start = i;
    while (start > 0 && within(errors[start - 1]!.instancePath, union.instancePath)) start--;
    const branchErrors = errors.slice(start, i);
    // unions nested in this one are part of its branches
    for (let j = start; j <= i; j++) {
      drop.add(j);
      replacements.delete(j);
    }
    replacements.set(i, condenseUnion(union, branchErrors, prefix, compile, depth));
  }
  const out: ValidationField[] = [];
  for (let i = 0; i < errors.length; i++) {
    if (replacements.has(i)) out.push(...replacements.get(i)!);
    else if (!drop.has(i)) out.push(toField(errors[i]!, prefix));
  }
  return out;
}

function condenseUnion(
  union: AjvError,
  branchErrors: AjvError[],
  prefix: string[],
  compile: Compile | null,
  depth: number,
): ValidationField[] {
  const path = [...prefix, ...segments(union.instancePath)];
  const here = branchErrors.filter((e) => e.instancePath === union.instancePath);
  // enum-like unions (literals, or a type or null): one entry naming every allowed value or type
  if (branchErrors.length > 0 && here.length === branchErrors.length && here.every((e) => SHALLOW.has(e.keyword)))
    return [allowedOf(branchErrors, path)];
  const branches = Array.isArray(union.schema) ? (union.schema as unknown[]) : [];
  if (depth < 8 && branches.length > 0) {
    const runs = branches.map((b) => allErrorsOf(compile, b, union.data));
    if (runs.every((r) => r !== null)) {
      const results = (runs as AjvError[][]).map((errs) => ({
        shallow: errs.every((e) => e.instancePath === '' && SHALLOW.has(e.keyword)),
        fields: condense(errs, path, compile, depth + 1),
      }));
      const candidates = results.filter((r) => !r.shallow && r.fields.length > 0);
      if (candidates.length === 0) return [allowedOf(runs.flat(), path)];
      // the branch that came closest: fewest problems (the first on a tie)
      return candidates.reduce((best, r) => (r.fields.length < best.fields.length ? r : best)).fields;
    }
  }
  // too large to validate again: the distinct errors seen, without the union's own
  const inner = condense(branchErrors, prefix, null, depth + 1);
  return inner.length > 0 ? inner : [{ path, source: 'body', message: union.message ?? 'is not valid' }];
}

/** "must be one of: a, b" (literals) or "must be string or null" (types) for a value no branch accepts. */
function allowedOf(errors: AjvError[], path: string[]): ValidationField {
  const values: unknown[] = [];
  const types: string[] = [];
  for (const e of errors) {
    if (e.keyword === 'const') values.push(e.params.allowedValue);
    else if (e.keyword === 'enum') values.push(...((e.params.allowedValues as unknown[]) ?? []));
    else if (e.keyword === 'type') types.push(...String(e.params.type).split(','));
  }
  const uniqueTypes = [...new Set(types)];
  if (values.length > 0) {
    const allowed = [...new Set(values), ...(uniqueTypes.includes('null') ? [null] : [])];
    return { path, source: 'body', message: `must be one of: ${list(allowed)}`, allowed };
  }
  return { path, source: 'body', message: uniqueTypes.length > 0 ? `must be ${uniqueTypes.join(' or ')}` : 'is not valid' };
}

/**
 * The fields of a Fastify validation error: one per problem, deduplicated, at most MAX_FIELDS. Never
 * throws (it runs inside the error handler): on any failure, one field per error of the first run.
 */
export function validationFields(app: FastifyInstance, request: FastifyRequest, err: FastifyError): ValidationField[] {
  const source = SOURCES[err.validationContext ?? 'body'] ?? 'body';
  try {
    return collectFields(app, request, err, source);
  } catch {
    return ((err.validation ?? []) as unknown as AjvError[]).slice(0, MAX_FIELDS).map((e) => ({
      path: segments(String(e.instancePath ?? '')),
      source,
      message: String(e.message ?? 'is not valid'),
    }));
  }
}

function collectFields(app: FastifyInstance, request: FastifyRequest, err: FastifyError, source: FieldIssue['source']): ValidationField[] {
  const context = err.validationContext ?? 'body';
  const part = PARTS[context];
  const data = part === 'body' ? request.body : part === 'querystring' ? request.query : part === 'params' ? request.params : undefined;
  const schema = part ? (request.routeOptions.schema as Record<string, unknown> | undefined)?.[part] : undefined;
  let compile: Compile | null = null;
  try {
    compile = part ? compilerOf(app, part) : null;
  } catch {
    compile = null;
  }
  const errors = allErrorsOf(compile, schema, data) ?? ((err.validation ?? []) as unknown as AjvError[]);
  const seen = new Set<string>();
  const fields: ValidationField[] = [];
  for (const f of condense(errors, [], compile)) {
    const key = `${f.path.join('\u0000')}\u0001${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const field: ValidationField = { path: f.path, source, message: f.message };
    if (f.allowed) field.allowed = f.allowed;
    fields.push(field);
    if (fields.length >= MAX_FIELDS) break;
  }
  return fields;
}
