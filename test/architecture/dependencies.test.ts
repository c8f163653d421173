import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

// The layer and area rules of docs/architecture.md, enforced by dependency-cruiser (.dependency-cruiser.cjs;
// `npm run lint` runs the same check).
// .dependency-cruiser-known-violations.json lists the imports that predate the rules; it may only shrink:
// a new forbidden import fails here, and a fixed one must be removed from the list.
const bin = path.resolve('node_modules/.bin/depcruise');

function cruise(dir: string, extra: string[] = []) {
  const res = spawnSync(bin, [dir, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...extra], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: res.status, output: res.stdout ? JSON.parse(res.stdout) : null, stderr: res.stderr };
}

describe('layer rules', () => {
  it('no import breaks a layer rule beyond the known list, and the known list holds no fixed entry', () => {
    const res = cruise('src', ['--ignore-known']);
    assert.ok(res.output, res.stderr);
    const violations = (
      res.output.summary.violations as Array<{ from: string; to: string; rule: { name: string; severity: string } }>
    ).filter((v) => v.rule.severity !== 'ignore');
    assert.deepEqual(
      violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`),
      [],
      'new forbidden imports (see docs/architecture.md)',
    );
    const all = cruise('src').output.summary.violations as Array<{ from: string; to: string }>;
    const known = JSON.parse(fs.readFileSync('.dependency-cruiser-known-violations.json', 'utf8')) as Array<{ from: string; to: string }>;
    const stale = known.filter((k) => !all.some((v) => v.from === k.from && v.to === k.to));
    assert.deepEqual(stale, [], 'fixed imports still listed in .dependency-cruiser-known-violations.json');
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

  it("catches an area importing another area's internals, or more than types from its module file", () => {
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
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
