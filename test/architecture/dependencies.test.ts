import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

// The layer, root, area and circle rules of docs/architecture.md, enforced by dependency-cruiser
// (.dependency-cruiser.cjs; `npm run lint` runs the same check). Nothing is exempt: there is no known list.
const bin = path.resolve('node_modules/.bin/depcruise');

function cruise(dir: string) {
  const res = spawnSync(bin, [dir, '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: res.status, output: res.stdout ? JSON.parse(res.stdout) : null, stderr: res.stderr };
}

/** The rules broken by the files of a small tree, as "rule: from -> to", sorted. */
function violationsIn(files: Record<string, string>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rules-'));
  try {
    fs.copyFileSync('tsconfig.json', path.join(dir, 'tsconfig.json'));
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.writeFileSync(path.join(dir, f), text);
    }
    const res = spawnSync(bin, ['src', '--config', path.resolve('.dependency-cruiser.cjs'), '--output-type', 'json'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.ok(res.stdout, res.stderr);
    return (JSON.parse(res.stdout).summary.violations as Array<{ from: string; to: string; rule: { name: string } }>)
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
      .sort();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('layer rules', () => {
  it('no import breaks a layer rule', () => {
    const res = cruise('src');
    assert.ok(res.output, res.stderr);
    const violations = (
      res.output.summary.violations as Array<{ from: string; to: string; rule: { name: string; severity: string } }>
    ).filter((v) => v.rule.severity !== 'ignore');
    assert.deepEqual(
      violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`),
      [],
      'forbidden imports (see docs/architecture.md)',
    );
    assert.equal(fs.existsSync('.dependency-cruiser-known-violations.json'), false, 'no known-violations list');
  });

  it('catches a circle (types only too), an import of the root or the sandbox from below, and the generic layers reaching up', () => {
    const found = violationsIn({
      // a circle through a type-only import
      'src/modules/a/a.module.ts':
        "import { routes } from './a.routes.js';\nexport interface AModule { n: number }\nexport const m = routes;\n",
      'src/modules/a/a.routes.ts': "import type { AModule } from './a.module.js';\nexport const routes = (m: AModule) => m.n;\n",
      // below the root: an area importing the root's files and the sandbox
      'src/app-deps.ts': 'export interface AppDeps { n: number }\n',
      'src/main/composition.ts': "import type { AppDeps } from '../app-deps.js';\nexport interface Root { deps: AppDeps }\n",
      'src/sandbox/sim.ts': 'export const sim = 1;\n',
      'src/modules/b/b.service.ts':
        "import type { AppDeps } from '../../app-deps.js';\nimport { sim } from '../../sandbox/sim.js';\nexport const b = (d: AppDeps) => d.n + sim;\n",
      // app.ts takes a type from main/
      'src/app.ts': "import type { Root } from './main/composition.js';\nexport const build = (r: Root) => r;\n",
      // http importing a provider; platform importing config.ts
      'src/providers/provider.ts': "export const PLATFORMS = ['x'] as const;\n",
      'src/http/schemas.ts': "import { PLATFORMS } from '../providers/provider.js';\nexport const p = PLATFORMS;\n",
      'src/config.ts': 'export interface Config { url: string }\n',
      'src/platform/db.ts': "import type { Config } from '../config.js';\nexport const open = (c: Config) => c.url;\n",
    });
    assert.deepEqual(found, [
      'app-takes-nothing-from-main: src/app.ts -> src/main/composition.ts',
      'http-stays-generic: src/http/schemas.ts -> src/providers/provider.ts',
      'no-circular: src/modules/a/a.module.ts -> src/modules/a/a.routes.ts',
      'nothing-imports-the-root: src/modules/b/b.service.ts -> src/app-deps.ts',
      'only-the-root-knows-the-sandbox: src/modules/b/b.service.ts -> src/sandbox/sim.ts',
      'platform-is-the-bottom-layer: src/platform/db.ts -> src/config.ts',
    ]);
  });

  it('catches a forbidden import (a platform file importing a module)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    try {
      fs.mkdirSync(path.join(dir, 'src/platform'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'src/modules/a'), { recursive: true });
      fs.copyFileSync('tsconfig.json', path.join(dir, 'tsconfig.json'));
      fs.writeFileSync(path.join(dir, 'src/modules/a/a.ts'), 'export const a = 1;\n');
      fs.writeFileSync(path.join(dir, 'src/platform/p.ts'), "import { a } from '../modules/a/a.js';\nexport const p = a;\n");
      const res = spawnSync(bin, ['src', '--config', path.resolve('.dependency-cruiser.cjs'), '--output-type', 'json'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.ok(res.stdout, res.stderr);
      const names = (JSON.parse(res.stdout).summary.violations as Array<{ rule: { name: string } }>).map((v) => v.rule.name);
      assert.deepEqual(names, ['platform-is-the-bottom-layer']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("catches an area importing another area's internals, or more than types from its module file, and the root an area's internals", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'areas-'));
    try {
      for (const d of ['src/modules/a', 'src/modules/b']) fs.mkdirSync(path.join(dir, d), { recursive: true });
      fs.copyFileSync('tsconfig.json', path.join(dir, 'tsconfig.json'));
      const write = (f: string, text: string) => fs.writeFileSync(path.join(dir, f), text);
      write('src/modules/b/b.repository.ts', 'export const rows = () => [];\n');
      write(
        'src/modules/b/b.module.ts',
        "import { rows } from './b.repository.js';\nexport interface BReadPort { rows(): unknown[] }\nexport const createB = () => ({ read: { rows } });\n",
      );
      // allowed: the other area's port type, from its module file; and anything inside one's own area
      write(
        'src/modules/a/a.service.ts',
        "import type { BReadPort } from '../b/b.module.js';\nexport const use = (b: BReadPort) => b.rows();\n",
      );
      write('src/modules/a/a.module.ts', "import { use } from './a.service.js';\nexport const a = use;\n");
      // forbidden: a file of the other area that is not its module file, and a value import of its module file
      write('src/modules/a/a.repository.ts', "import { rows } from '../b/b.repository.js';\nexport const mine = rows;\n");
      // the root: an area's module file and its command file, never a repository
      fs.mkdirSync(path.join(dir, 'src/main'), { recursive: true });
      write('src/modules/b/b.cli.ts', 'export const commands = [];\n');
      write(
        'src/main/cli.ts',
        "import { createB } from '../modules/b/b.module.js';\nimport { commands } from '../modules/b/b.cli.js';\nimport { rows } from '../modules/b/b.repository.js';\nexport const all = [createB, commands, rows];\n",
      );
      write('src/modules/a/a.jobs.ts', "import { createB } from '../b/b.module.js';\nexport const b = createB;\n");
      const res = spawnSync(bin, ['src', '--config', path.resolve('.dependency-cruiser.cjs'), '--output-type', 'json'], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.ok(res.stdout, res.stderr);
      const found = (JSON.parse(res.stdout).summary.violations as Array<{ from: string; to: string; rule: { name: string } }>)
        .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
        .sort();
      assert.deepEqual(found, [
        'areas-import-types-of-each-other: src/modules/a/a.jobs.ts -> src/modules/b/b.module.ts',
        'areas-meet-through-their-module: src/modules/a/a.repository.ts -> src/modules/b/b.repository.ts',
        'the-root-meets-areas-through-their-public-files: src/main/cli.ts -> src/modules/b/b.repository.ts',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
