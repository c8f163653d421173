/**
 * How the service is bundled: the production build (scripts/build.ts) and the benchmarks' servers
 * (bench:api, bench:tools) use the same options, so a benchmark measures what production runs.
 * - dependencies stay in node_modules (external-dependencies.ts);
 * - `splitting`: a module the code imports dynamically (the sandbox, the MCP runtime, the feed parser)
 *   becomes its own chunk, loaded when first used. Without it esbuild inlines such a module and hoists its
 *   packages' imports to the top of the bundle, so every process would load them at start;
 * - the version is written into the bundle (src/main/runtime.ts), so a bundle in any directory runs (the
 *   benchmarks bundle theirs under dist/bench-*).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { externalDependencies } from './external-dependencies.js';

const { version } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as { version: string };

export const SERVICE_BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [externalDependencies],
  logLevel: 'warning',
  define: { __SERVICE_VERSION__: JSON.stringify(version) },
} satisfies BuildOptions;
