/**
 * The production bundle of the service: `outdir`/main/cli.js, the QR worker thread's module beside it
 * (qr-worker-pool.ts resolves both relative to the module that starts the pool, which stays in the entry,
 * not in a shared chunk), and chunks for the modules loaded on first use (bundle-options.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { SERVICE_BUNDLE_OPTIONS } from './bundle-options.js';

const ROOT = path.resolve(import.meta.dirname, '..');

export async function buildService(outdir: string): Promise<string> {
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: {
      'main/cli': path.join(ROOT, 'src/main/cli.ts'),
      'main/qr-encoder.worker': path.join(ROOT, 'src/modules/tools/qrcode/qr-encoder.worker.ts'),
    },
    outdir,
    ...SERVICE_BUNDLE_OPTIONS,
    sourcemap: true,
  });
  fs.copyFileSync(path.join(ROOT, 'src/modules/tools/qrcode/qr-worker-bootstrap.mjs'), path.join(outdir, 'main/qr-worker-bootstrap.mjs'));
  return path.join(outdir, 'main/cli.js');
}
