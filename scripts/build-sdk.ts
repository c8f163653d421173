/**
 * Builds packages/sdk into an installable package (dist/): one ES module with its runtime dependencies
 * (openapi-fetch, standardwebhooks) bundled by esbuild, so the package installs with no registry
 * dependencies, plus type declarations from tsc. The declarations of openapi-fetch's `Client` (the
 * SDK's typed client extends it) are shipped beside them under dist/vendor with their licences.
 *   npm run sdk:build && (cd packages/sdk && npm pack)
 * `buildSdk(dir)` builds a copy of the package in another directory (package.json and README.md copied
 * beside its dist/): test runs side by side (CI's two passes) each pack their own, never a dist/ that the
 * other is rewriting.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const pkg = path.join(root, 'packages/sdk');

export async function buildSdk(packageDir: string = pkg): Promise<string> {
  const dist = path.join(packageDir, 'dist');
  fs.rmSync(dist, { recursive: true, force: true });
  if (path.resolve(packageDir) !== pkg) {
    fs.mkdirSync(packageDir, { recursive: true });
    for (const file of ['package.json', 'README.md']) fs.copyFileSync(path.join(pkg, file), path.join(packageDir, file));
  }
  await build({
    entryPoints: [path.join(pkg, 'src/index.ts')],
    outfile: path.join(dist, 'index.js'),
    bundle: true,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
    legalComments: 'eof',
  });
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(pkg, 'tsconfig.build.json'), '--outDir', dist],
    {
      stdio: 'inherit',
    },
  );
  // openapi-fetch's declarations (and the helpers they import) travel with the package
  const vendor = (name: string, file: string) => {
    const dir = path.join(dist, 'vendor', name);
    fs.mkdirSync(dir, { recursive: true });
    const text = fs
      .readFileSync(path.join(root, 'node_modules', name, file), 'utf8')
      .replace(/from ['"]openapi-typescript-helpers['"]/g, "from '../openapi-typescript-helpers/index.js'");
    fs.writeFileSync(path.join(dir, 'index.d.ts'), text);
    fs.copyFileSync(path.join(root, 'node_modules', name, 'LICENSE'), path.join(dir, 'LICENSE'));
  };
  vendor('openapi-fetch', 'dist/index.d.ts');
  vendor('openapi-typescript-helpers', 'dist/index.d.ts');
  for (const file of fs.readdirSync(dist, { recursive: true }) as string[]) {
    if (!file.endsWith('.d.ts') || file.startsWith('vendor')) continue;
    const full = path.join(dist, file);
    const rel = path.relative(path.dirname(full), path.join(dist, 'vendor/openapi-fetch/index.js')).replace(/\\/g, '/');
    const text = fs.readFileSync(full, 'utf8');
    if (/from ['"]standardwebhooks['"]/.test(text)) throw new Error(`${file} exposes standardwebhooks types; keep them internal`);
    fs.writeFileSync(full, text.replace(/from ['"]openapi-fetch['"]/g, `from '${rel.startsWith('.') ? rel : `./${rel}`}'`));
  }
  return dist;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  console.log(`built ${await buildSdk()}`);
}
