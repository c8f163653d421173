/**
 * How the service is bundled: the production build (scripts/build.ts) and the benchmarks' servers
 * (bench:api, bench:tools) use the same options, so a benchmark measures what production runs.
 * - dependencies stay in node_modules (external-dependencies.ts);
 * - `splitting`: a module the code imports dynamically (the sandbox, the MCP runtime, the feed parser)
 *   becomes its own chunk, loaded when first used. Without it esbuild inlines such a module and hoists its
 *   packages' imports to the top of the bundle, so every process would load them at start.
 */
import type { BuildOptions } from 'esbuild';
import { externalDependencies } from './external-dependencies.js';

export const SERVICE_BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [externalDependencies],
  logLevel: 'warning',
} satisfies BuildOptions;
