/**
 * Production build: bundles the service into dist/ with esbuild (dependencies stay in node_modules), so
 * production processes run plain JavaScript without the TypeScript loader (less memory, faster start).
 *   npm run build && node dist/main/cli.js api
 */
import fs from 'node:fs';
import { build } from 'esbuild';
import { externalDependencies } from './external-dependencies.js';

fs.rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: {
    'main/cli': 'src/main/cli.ts',
    // the QR worker thread's module, beside the bundle that starts it (see qr-worker-pool.ts)
    'main/qr-encoder.worker': 'src/modules/tools/qrcode/qr-encoder.worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // dependencies stay in node_modules; the repository's own packages are bundled
  plugins: [externalDependencies],
  sourcemap: true,
  logLevel: 'warning',
});
fs.copyFileSync('src/modules/tools/qrcode/qr-worker-bootstrap.mjs', 'dist/main/qr-worker-bootstrap.mjs');
console.log('built dist/main/cli.js');
