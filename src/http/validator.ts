/**
 * The request validator of every route: ajv through Fastify's own compiler, with one ajv instance per kind
 * of input, chosen by the part of the request (`httpPart`):
 * - query strings, path parameters and headers are text by nature: their values are converted to the
 *   declared types (`?limit=10` is the number 10, `?ids=a` the array ["a"]);
 * - bodies (JSON) are never converted: a value has exactly its declared JSON type or the request is
 *   refused naming the field. `"dryRun": null`, `0`, `"false"` or `[false]` are not `false`, `null` is not
 *   `""`, and `123` is not the text "123".
 *
 * Installed as the server's `schemaController.compilersFactory.buildValidator` (src/app.ts), so every
 * route and every encapsulated plugin gets it; a plugin that sets its own validator compiler (the tool
 * API, which checks bodies in its own parsers) opts out explicitly. Header schema keys must be written in
 * lower case (Fastify lower-cases them only for its default compiler).
 */
import { createRequire } from 'node:module';

/** ajv options every part shares. */
export const AJV_CUSTOM_OPTIONS = {
  // reject unknown properties instead of silently dropping them (the spec's shapes are closed)
  removeAdditional: false,
  useDefaults: true,
  // first error only on the request path; validation-errors.ts collects the rest on small inputs
  allErrors: false,
} as const;

/** The request parts whose values are text and are converted to their declared types. */
const TEXT_PARTS: ReadonlySet<string> = new Set(['querystring', 'params', 'headers']);

/** ajv's coercion for a part: text parts only ('array' also wraps a single query value in an array). */
export function coercionOf(httpPart: string | undefined): 'array' | false {
  return httpPart !== undefined && TEXT_PARTS.has(httpPart) ? 'array' : false;
}

interface RouteSchemaRef {
  schema: object;
  method?: string;
  url?: string;
  httpPart?: string;
}
type CompileRoute = (route: RouteSchemaRef) => unknown;
interface CompilerOptions {
  customOptions?: object;
  plugins?: unknown[];
}
type BuildCompiler = (externalSchemas: unknown, options?: CompilerOptions) => CompileRoute;

/** The `compilersFactory.buildValidator` of the server: Fastify's ajv compiler, one instance per coercion. */
export function partAwareValidatorBuilder(): BuildCompiler {
  const compilerRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const AjvCompiler = compilerRequire('@fastify/ajv-compiler') as () => BuildCompiler;
  // the pool caches compilers by external schemas and options: one per plugin context and coercion
  const pool = AjvCompiler();
  return (externalSchemas, options = {}) => {
    const withCoercion = (coerceTypes: 'array' | false) =>
      pool(externalSchemas, { ...options, customOptions: { ...(options.customOptions ?? {}), coerceTypes } });
    const text = withCoercion('array');
    const json = withCoercion(false);
    return (route) => (coercionOf(route.httpPart) ? text : json)(route);
  };
}
