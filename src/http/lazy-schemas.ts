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

  private wrap(build: BuildCompiler, validator: boolean): BuildCompiler {
    return (externalSchemas, options) => {
      // the compiler of a plugin context is made on its first use too (Fastify's pool keys it by the
      // shared schemas, serialized: not free either)
      let compileRoute: CompileRoute | null = null;
      return (route) => {
        let compiled: Compiled | null = null;
        const compile = (): Compiled => {
          if (!compiled) {
            this.pending.delete(stand);
            compileRoute ??= build(externalSchemas, options);
            compiled = compileRoute(route);
          }
          return compiled;
        };
        // Fastify reads `errors` from the function it called, and hands ajv validators (`schemaEnv`) their
        // parent object so that a root value can be replaced (defaults, coercion)
        const stand: Compiled = validator
          ? (data: unknown, parent: unknown) => {
              const fn = compile();
              const result = fn(data, parent);
              stand.errors = fn.errors;
              return result;
            }
          : (data: unknown) => compile()(data);
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
