/**
 * The table rule of docs/architecture.md, which no import rule can see: an area's SQL names only its own
 * tables. An area owns the tables of the `*Tables` interface in its `<area>.tables.ts`; the foundation
 * tables declared in `src/platform/db/schema.ts` belong to the areas in FOUNDATION_OWNERS (platform
 * tables, such as the workers' heartbeats, are infrastructure every area may read).
 *
 * A reference is a Kysely builder call naming the table (`selectFrom('t')`, `innerJoin('t as x', ...)`,
 * `insertInto`, `updateTable`, `deleteFrom`, `with`) or raw SQL text (`from t`, `join t`, `into t`,
 * `update t`). `npm run lint:tables` prints the violations and fails on any.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FOUNDATION_OWNERS: Readonly<Record<string, string>> = {
  organizations: 'identity',
  users: 'identity',
  memberships: 'identity',
  api_keys: 'identity',
  auth_sessions: 'identity',
  brands: 'brands',
  brand_products: 'brands',
};

/** Tables of the platform layer (the event outbox, the workers' heartbeats): infrastructure, no area's. */
export const PLATFORM_TABLES: readonly string[] = ['events', 'worker_heartbeats'];

export interface TableViolation {
  file: string;
  area: string;
  table: string;
  owner: string;
}

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** table name -> owning area, from every area's `<area>.tables.ts` and FOUNDATION_OWNERS */
export function tableOwners(modulesDir: string): Map<string, string> {
  const owners = new Map(Object.entries(FOUNDATION_OWNERS));
  for (const area of fs.readdirSync(modulesDir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const dir = path.join(modulesDir, area.name);
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.tables.ts'))) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const block = /export (?:interface|type) \w+Tables\s*=?\s*\{([\s\S]*?)\n\}/.exec(text);
      if (!block) throw new Error(`${path.join(dir, file)} declares no *Tables interface`);
      for (const m of block[1]!.matchAll(/^\s*([a-z_][a-z0-9_]*)\s*:/gm)) owners.set(m[1]!, area.name);
    }
  }
  return owners;
}

/** Every reference in `src/modules/<area>/**` to a table another area owns. */
export function tableViolations(modulesDir: string): TableViolation[] {
  const owners = tableOwners(modulesDir);
  const patterns = [...owners].map(([table, owner]) => ({
    table,
    owner,
    builder: new RegExp(
      `\\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|with)\\(\\s*['"\`]${table}\\b`,
    ),
    sql: new RegExp(`\\b(?:from|join|into|update)\\s+${table}\\b`, 'i'),
  }));
  const out: TableViolation[] = [];
  for (const file of files(modulesDir)) {
    const area = path.relative(modulesDir, file).split(path.sep)[0]!;
    if (!fs.statSync(path.join(modulesDir, area)).isDirectory()) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const p of patterns)
      if (p.owner !== area && (p.builder.test(text) || p.sql.test(text))) out.push({ file, area, table: p.table, owner: p.owner });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const found = tableViolations(path.resolve('src/modules'));
  for (const v of found) console.error(`${v.file}: the ${v.area} area names ${v.table}, a table of ${v.owner}`);
  if (found.length > 0) process.exit(1);
  console.log('table rule: every area names only its own tables');
}
