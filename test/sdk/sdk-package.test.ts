/**
 * @service-api/sdk as a package, the way a developer outside this repository uses it: built, packed
 * with `npm pack`, installed offline into a new project (the tarball has no registry dependencies),
 * imported by plain `node` as an ES module against a running server, and type-checked with `tsc`
 * (a correct program passes; a call to a path the API lacks fails, so the types are real).
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { buildSdk } from '../../scripts/build-sdk.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';

const repo = path.resolve(import.meta.dirname, '../..');
const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

describe('@service-api/sdk package', () => {
  let dir: string;
  let packageDir: string;
  let ctx: TestContext;
  let base: string;
  let apiKey: string;
  let brandId: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sdk-package-'));
    // built into this test's own directory: another test run beside this one (CI's other pass) builds its own
    packageDir = path.join(dir, 'package');
    await buildSdk(packageDir);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    ctx = await createTestContext({ env: { SERVICE_PUBLIC_BASE_URL: base } });
    await ctx.app.listen({ port, host: '127.0.0.1' });
    const org = await ctx.createOrganization({ name: 'Package Org' });
    apiKey = org.apiKey;
    brandId = (await ctx.createBrand(org.organizationId, 'Packaged')).brandId;
  });
  after(async () => {
    await ctx?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('packs, installs offline into a new project, runs with plain node and type-checks with tsc', async () => {
    const tarball = npm(['pack', '--silent', '--pack-destination', dir], packageDir).trim().split('\n').pop()!;
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    npm(['install', '--offline', '--no-audit', '--no-fund', path.join(dir, tarball)], project);
    const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@service-api/sdk/package.json'), 'utf8'));
    assert.equal(installed.dependencies, undefined, 'no registry dependencies');

    fs.writeFileSync(
      path.join(project, 'main.mjs'),
      `import { createServiceApi, unwrap, ServiceApiUnreachableError } from '@service-api/sdk';
const api = createServiceApi({ baseUrl: process.env.BASE, token: process.env.KEY });
const brands = await unwrap(api.GET('/v1/brands'));
console.log(JSON.stringify(brands.data.map((b) => b.brandId)));
try {
  await createServiceApi({ baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }).GET('/v1/brands');
} catch (err) {
  console.log(err instanceof ServiceApiUnreachableError ? err.message : 'other: ' + err);
}
`,
    );
    // asynchronously: the server answering it runs in this process
    const run = await promisify(execFile)(process.execPath, ['main.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, BASE: base, KEY: apiKey },
    });
    const [ids, unreachable] = run.stdout.trim().split('\n');
    assert.deepEqual(JSON.parse(ids!), [brandId]);
    assert.match(unreachable!, /Could not reach the API at http:\/\/127\.0\.0\.1:9/);

    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        include: ['*.ts'],
      }),
    );
    fs.writeFileSync(
      path.join(project, 'typed.ts'),
      `import { createServiceApi, unwrap, type Schema } from '@service-api/sdk';
const api = createServiceApi({ baseUrl: 'http://localhost:8080', token: 'sk_x' });
export async function names(): Promise<string[]> {
  const page = await unwrap(api.GET('/v1/brands', { params: { query: { limit: 10 } } }));
  const brands: Schema<'Brand'>[] = page.data;
  return brands.map((b) => b.name);
}
`,
    );
    const ok = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    fs.writeFileSync(
      path.join(project, 'wrong.ts'),
      `import { createServiceApi } from '@service-api/sdk';
export const x = createServiceApi({ baseUrl: 'http://localhost:8080' }).GET('/v1/no-such-path');
`,
    );
    const wrong = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
    assert.notEqual(wrong.status, 0, 'a path the API lacks does not type-check');
    assert.match(wrong.stdout, /wrong\.ts/);
  });
});
