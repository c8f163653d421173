/**
 * The production bundle of the service: `outdir`/main/cli.js, the QR worker thread's module beside it
 * (qr-worker-pool.ts resolves both relative to the module that starts the pool, which stays in the entry,
 * not in a shared chunk), and chunks for the modules loaded on first use (bundle-options.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { SERVICE_BUNDLE_OPTIONS } from './bundle-options.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Bundles `entries` (name → source file) into `outdir` with the QR worker's module and bootstrap next to
 * them, in `entryDir` ('main/' for the service; the tool API benchmark's server uses '').
 */
export async function bundleWithQrWorker(
  outdir: string,
  entryDir: string,
  entries: Record<string, string>,
  extra: BuildOptions = {},
): Promise<void> {
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { ...entries, [`${entryDir}qr-encoder.worker`]: path.join(ROOT, 'src/modules/tools/qrcode/qr-encoder.worker.ts') },
    outdir,
    ...SERVICE_BUNDLE_OPTIONS,
    ...extra,
  });
  fs.copyFileSync(
    path.join(ROOT, 'src/modules/tools/qrcode/qr-worker-bootstrap.mjs'),
    path.join(outdir, entryDir, 'qr-worker-bootstrap.mjs'),
  );
}

export async function buildService(outdir: string): Promise<string> {
  await bundleWithQrWorker(outdir, 'main/', { 'main/cli': path.join(ROOT, 'src/main/cli.ts') }, { sourcemap: true });
  return path.join(outdir, 'main/cli.js');
}
