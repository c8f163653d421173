/**
 * Production build: bundles the service into dist/ with esbuild (dependencies stay in node_modules), so
 * production processes run plain JavaScript without the TypeScript loader (less memory, faster start).
 *   npm run build && node dist/main/cli.js api
 * test/main/production-build.test.ts builds the same bundle and runs it.
 */
import { buildService } from './build-service.js';

console.log(`built ${await buildService('dist')}`);
