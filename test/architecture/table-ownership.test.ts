import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PLATFORM_TABLES, scanSource, sqlPlacementViolations, tableOwners, tableViolations } from '../../scripts/table-ownership.js';

// The table rule of docs/architecture.md: an area's SQL names only its own tables (other areas' data
// comes through their read ports). `npm run lint` runs the same check.
describe('table rule', () => {
  it("no area's SQL names another area's table", () => {
    assert.deepEqual(
      tableViolations(path.resolve('src/modules'), path.resolve('src/main')).map(
        (v) => `${path.relative(process.cwd(), v.file)}: ${v.table} (${v.owner})`,
      ),
      [],
    );
  });

  it('holds SQL only in repositories (the root holds none)', () => {
    const placed = sqlPlacementViolations(path.resolve('src/modules'), path.resolve('src/main')).map(
      (v) => `${path.relative(process.cwd(), v.file)}:${v.line}`,
    );
    assert.deepEqual(placed, [], 'SQL outside a repository');
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

  it('sees every way of naming a table, and neither comments nor CTE names', () => {
    const tables = (code: string) => [...scanSource('x.ts', code).tables].sort();
    // each evasion names alpha_rows
    const evasions = [
      'db.selectFrom("alpha_rows")',
      "db.selectFrom('public.alpha_rows as a')",
      "db.selectFrom(['beta_rows', 'alpha_rows'])",
      "db.selectFrom('beta_rows').crossJoin('alpha_rows')",
      "db.mergeInto('alpha_rows as t').using('beta_rows as s', 's.id', 't.id')",
      "db.selectFrom('beta_rows').innerJoinLateral((eb) => eb.selectFrom('alpha_rows').as('a'), (j) => j.onTrue())",
      "db.selectFrom('beta_rows').leftJoinLateral('alpha_rows as a', (j) => j.onTrue())",
      "const T = 'alpha_rows';\ndb.deleteFrom(T)",
      "const T = 'alpha_rows' as const;\nsql`select 1 from ${sql.table(T)}`",
      "sql`select * from ${sql.table('alpha_rows')}`",
      "sql`select ${sql.ref('alpha_rows.id')}`",
      "sql`select ${sql.id('public', 'alpha_rows')}`",
      'sql`select 1 from "alpha_rows"`',
      'sql`select 1 from public.alpha_rows`',
      "const T = 'alpha_rows';\nsql`update ${sql.raw(T)} set x = 1`",
      "sql`insert into ${sql.raw('alpha_rows')} default values`",
      "const T = 'alpha_rows';\nsql`select 1 from ${T}`",
      "db.withRecursive('tree(id)', (q) => q.selectFrom('alpha_rows').select('id')).selectFrom('tree')",
    ];
    for (const code of evasions) assert.ok(tables(code).includes('alpha_rows'), code);
    // what names no table
    assert.deepEqual(tables("// db.selectFrom('alpha_rows')\n/* sql`select 1 from alpha_rows` */\nconst x = 1;"), []);
    assert.deepEqual(tables("if (rel.startsWith('alpha_rows/')) {}\nconst msg = 'select from alpha_rows';"), []);
    assert.deepEqual(tables("db.with('alpha_rows', (q) => q.selectFrom('beta_rows')).selectFrom('alpha_rows')"), ['beta_rows']);
  });

  it("flags an area naming another area's table, the root naming any, and SQL outside a repository", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tables-ast-'));
    try {
      const write = (f: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        fs.writeFileSync(path.join(dir, f), text);
      };
      write('modules/alpha/alpha.tables.ts', 'export interface AlphaTables {\n  alpha_rows: { id: string };\n}\n');
      write('modules/beta/beta.tables.ts', 'export interface BetaTables {\n  beta_rows: { id: string };\n}\n');
      // happy: an area naming its own tables in its repository
      write('modules/beta/beta.repository.ts', "db.selectFrom('beta_rows').selectAll()\n// db.selectFrom('alpha_rows')\n");
      write('modules/beta/beta.service.ts', "const T = 'alpha_rows';\ndb.selectFrom(T)\n");
      write('main/cli.ts', 'sql`select 1 from beta_rows`\n');
      const owned = tableViolations(path.join(dir, 'modules'), path.join(dir, 'main'))
        .map((v) => `${path.relative(dir, v.file)}: ${v.table} of ${v.owner}`)
        .sort();
      assert.deepEqual(owned, ['main/cli.ts: beta_rows of beta', 'modules/beta/beta.service.ts: alpha_rows of alpha']);
      const placed = sqlPlacementViolations(path.join(dir, 'modules'), path.join(dir, 'main')).map(
        (v) => `${path.relative(dir, v.file)}:${v.line} ${v.call}`,
      );
      assert.deepEqual(placed.sort(), ['main/cli.ts:1 sql`...`', 'modules/beta/beta.service.ts:2 selectFrom(...)']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
