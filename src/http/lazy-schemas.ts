/**
 * Route schemas compiled on first use. Fastify compiles every route's request validators (ajv) and response
 * serializers (fast-json-stringify) while the app starts: some hundreds of schemas, most of the CPU time of
 * building an app. A process that answers a few routes (a CLI command's app, each test's app) never needs
 * most of them. Here each compiled function is a stand-in that compiles on its first call; a server calls
 * `compileRemaining` once it listens, which compiles the rest in the background (one schema per turn of the
 * event loop) so its first answers do not wait either, and reports a schema that does not compile.
 */
import { createRequire } from 'node:module';

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };
interface RouteSchema {
  schema: object;
  method?: string;
  url?: string;
  httpPart?: string;
  httpStatus?: string;
  contentType?: string;
}
type CompileRoute = (route: RouteSchema) => Compiled;
type BuildCompiler = (externalSchemas: unknown, options?: unknown) => CompileRoute;

export interface SchemaCompileFailure {
  route: string;
  error: Error;
}

export class LazySchemas {
  private readonly pending = new Map<Compiled, () => Compiled>();
  /** compiled functions by compiler context (see `sharedFor`), then by schema text */
  private readonly shared = new Map<string, Map<string, Compiled>>();
  private readonly objectIds = new WeakMap<object, number>();
  private nextObjectId = 1;
  /** how many schemas were compiled (distinct ones: a repeated schema reuses the compiled function) */
  compiledCount = 0;

  /** Fastify's own response serializer compiler (fast-json-stringify), compiling on first use. */
  serializers(): BuildCompiler {
    const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
    const selector = fastifyRequire('@fastify/fast-json-stringify-compiler') as () => BuildCompiler;
    return this.wrap(selector(), false);
  }

  /** The given validator compiler (ajv), compiling on first use. */
  validators(build: (externalSchemas: unknown, options?: never) => unknown): BuildCompiler {
    return this.wrap(build as BuildCompiler, true);
  }

  /** Compiles every schema not used yet, yielding between them; resolves with the ones that failed. */
  async compileRemaining(): Promise<SchemaCompileFailure[]> {
    const failures: SchemaCompileFailure[] = [];
    for (const [stand, compile] of [...this.pending]) {
      if (!this.pending.has(stand)) continue;
      try {
        compile();
      } catch (error) {
        failures.push({ route: (stand as { route?: string }).route ?? '?', error: error as Error });
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    return failures;
  }

  private idOf(value: unknown): number {
    if (typeof value !== 'object' || value === null) return 0;
    let id = this.objectIds.get(value);
    if (id === undefined) {
      id = this.nextObjectId++;
      this.objectIds.set(value, id);
    }
    return id;
  }

  /**
   * The compiled functions of one compiler context: the same shared schemas (by identity: Fastify hands
   * each route of a context that added schemas a fresh copy of the same map) and the same options.
   */
  private sharedFor(validator: boolean, externalSchemas: unknown, options: unknown): Map<string, Compiled> {
    const externals = Object.entries((externalSchemas ?? {}) as Record<string, unknown>)
      .map(([id, schema]) => `${id}=${this.idOf(schema)}`)
      .sort()
      .join(',');
    const key = `${validator ? 'validator' : 'serializer'} ${this.idOf(options)} ${externals}`;
    let map = this.shared.get(key);
    if (!map) {
      map = new Map();
      this.shared.set(key, map);
    }
    return map;
  }

  private wrap(build: BuildCompiler, validator: boolean): BuildCompiler {
    return (externalSchemas, options) => {
      // the compiler of a plugin context is made on its first use too (Fastify's pool keys it by the
      // shared schemas, serialized: not free either)
      let compileRoute: CompileRoute | null = null;
      // One compiled function per distinct schema text in a compiler context (and, for validators, per
      // request part: query strings are converted, bodies are not). Routes repeat schemas: most answer their
      // errors with the same ones, so ~1,000 response serializers are ~250 distinct schemas, and a serializer
      // of a schema with a union holds its own ajv instance. The text is a sound key: the compilers read
      // only JSON values of a schema (TypeBox's symbol-keyed markers are not read by them).
      let compiledByText: Map<string, Compiled> | null = null;
      return (route) => {
        let compiled: Compiled | null = null;
        const compile = (): Compiled => {
          if (!compiled) {
            this.pending.delete(stand);
            const text = `${validator ? (route.httpPart ?? '') : ''} ${JSON.stringify(route.schema)}`;
            compiledByText ??= this.sharedFor(validator, externalSchemas, options);
            compiled = compiledByText.get(text) ?? null;
            if (!compiled) {
              // the context's compiler is made only when a schema of it is not compiled yet
              compileRoute ??= build(externalSchemas, options);
              compiled = compileRoute(route);
              this.compiledCount++;
              compiledByText.set(text, compiled);
            }
          }
          return compiled;
        };
        // Fastify reads `errors` from the function it called, and hands ajv validators (`schemaEnv`) their
        // parent object so that a root value can be replaced (defaults, coercion)
        const stand: Compiled = validator
          ? (data: unknown, parent: unknown) => {
              const fn = compiled ?? compile();
              const result = fn(data, parent);
              stand.errors = fn.errors;
              return result;
            }
          : (data: unknown) => (compiled ?? compile())(data);
        if (validator) stand.schemaEnv = true;
        Object.defineProperty(stand, 'route', {
          value: `${route.method ?? ''} ${route.url ?? ''} ${route.httpPart ?? route.httpStatus ?? ''} ${route.contentType ?? ''}`.trim(),
        });
        this.pending.set(stand, compile);
        return stand;
      };
    };
  }
}
