import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PLATFORM_TABLES, tableOwners, tableViolations } from '../../scripts/table-ownership.js';

// The table rule of docs/architecture.md: an area's SQL names only its own tables (other areas' data
// comes through their read ports). `npm run lint` runs the same check.
describe('table rule', () => {
  it("no area's SQL names another area's table", () => {
    assert.deepEqual(
      tableViolations(path.resolve('src/modules')).map((v) => `${path.relative(process.cwd(), v.file)}: ${v.table} (${v.owner})`),
      [],
    );
  });

  it('knows the owner of every table the migrations create', () => {
    const owners = tableOwners(path.resolve('src/modules'));
    const dir = path.resolve('src/platform/db/migrations');
    const created = fs
      .readdirSync(dir)
      .flatMap((f) => [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/createTable\('([a-z_]+)'/g)].map((m) => m[1]!));
    assert.ok(created.length >= 39, `${created.length} tables`);
    assert.deepEqual(
      created.filter((t) => !owners.has(t) && !PLATFORM_TABLES.includes(t)),
      [],
      "tables with no owning area (declare them in the area's <area>.tables.ts)",
    );
    assert.equal(owners.get('channel_accounts'), 'channels');
    assert.equal(owners.get('publishing_profile_channels'), 'profiles');
    assert.equal(owners.get('brands'), 'brands');
    assert.equal(owners.get('api_keys'), 'identity');
  });

  it('catches a Kysely join and raw SQL over another area, and leaves look-alike words alone', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tables-'));
    try {
      const area = (name: string, files: Record<string, string>) => {
        fs.mkdirSync(path.join(dir, name), { recursive: true });
        for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name, f), text);
      };
      area('alpha', { 'alpha.tables.ts': 'export interface AlphaTables {\n  alpha_rows: { id: string };\n}\n' });
      area('beta', {
        'beta.tables.ts': 'export interface BetaTables {\n  beta_rows: { id: string };\n}\n',
        'beta.repository.ts': "db.selectFrom('beta_rows as b').innerJoin('alpha_rows as a', (j) => j)\n",
        'beta.raw.ts': 'sql`select 1 from beta_rows b join alpha_rows a on true`\n',
        'beta.words.ts': "if (rel.startsWith('alpha_rows/')) {}\n",
      });
      const found = tableViolations(dir).map((v) => `${path.basename(v.file)}: ${v.table} of ${v.owner}`);
      assert.deepEqual(found.sort(), ['beta.raw.ts: alpha_rows of alpha', 'beta.repository.ts: alpha_rows of alpha']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
