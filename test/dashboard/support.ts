import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const SCREENSHOTS = path.resolve('test-output/dashboard');
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p)) ?? null;
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Builds web/dist once when it is missing or stale. */
export function ensureWebBuild(): void {
  const res = spawnSync(process.execPath, ['scripts/ensure-web-build.mjs'], { stdio: 'inherit' });
  if (res.status !== 0) throw new Error('dashboard build failed');
}

/** The budget for the JavaScript of the first load of /app/, gzip-compressed. */
export const FIRST_LOAD_JS_BUDGET = 300 * 1024;
