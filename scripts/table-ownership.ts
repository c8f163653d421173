/**
 * The table rules of docs/architecture.md, which no import rule can see, checked on the TypeScript syntax
 * tree (so comments never count and quoting or a constant does not hide a name):
 *
 * 1. An area's SQL names only its own tables. An area owns the tables of the `*Tables` interface in its
 *    `<area>.tables.ts`; the foundation tables declared in `src/platform/db/schema.ts` belong to the areas
 *    in FOUNDATION_OWNERS (platform tables, such as the workers' heartbeats, are infrastructure every area
 *    may read). `src/main/` owns no table: the root reaches data only through the modules.
 *    A reference is a Kysely builder call naming the table (`selectFrom`, the joins, lateral and cross
 *    joins included, `insertInto`, `updateTable`, `deleteFrom`, `mergeInto`, `replaceInto`, `using`; a
 *    name, `'t as x'`, `'public.t'`, an array of them, or a `const` holding one), `sql.table('t')`,
 *    `sql.ref('t.c')`, `sql.id(...)`, or raw SQL text (`from t`, `join t`, `into t`, `update t`, `using t`,
 *    quoted or schema-qualified) in a `sql` template (its constant parts included) or `sql.raw(...)`.
 *    The names a file gives its common table expressions (`with`, `withRecursive`) are not tables.
 * 2. SQL lives in repositories: inside `src/modules/**` a Kysely builder call that starts a statement
 *    (`selectFrom`, `insertInto`, `updateTable`, `deleteFrom`, `mergeInto`, `replaceInto`) or a `sql`
 *    template appears only in files named `*.repository.ts`, and nowhere in `src/main/` (the CLI's
 *    listings too come from the areas' repositories, through the services the root builds).
 *
 * `npm run lint:tables` prints the violations and fails on any.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

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

export interface SqlPlacementViolation {
  file: string;
  /** what was found: `selectFrom(...)`, `sql\`...\`` */
  call: string;
  line: number;
}

/** builder calls whose first argument names a table (or an array of them) */
const TABLE_ARG_CALLS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'replaceInto',
  'using',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
]);
/** builder calls that start a statement: only repositories make them */
const STATEMENT_CALLS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'mergeInto', 'replaceInto']);
const CTE_CALLS = new Set(['with', 'withRecursive', 'withMaterialized', 'withNotMaterialized']);
/** raw SQL: a keyword then a table, optionally schema-qualified and quoted */
const RAW_TABLE = /\b(?:from|join|into|update|using)\s+(?:"?public"?\s*\.\s*)?"?([a-z_][a-z0-9_]*)"?/gi;

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
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
      const source = ts.createSourceFile(file, fs.readFileSync(path.join(dir, file), 'utf8'), ts.ScriptTarget.Latest);
      let found = false;
      for (const st of source.statements) {
        const members =
          ts.isInterfaceDeclaration(st) && /Tables$/.test(st.name.text)
            ? st.members
            : ts.isTypeAliasDeclaration(st) && /Tables$/.test(st.name.text) && ts.isTypeLiteralNode(st.type)
              ? st.type.members
              : null;
        if (!members) continue;
        found = true;
        for (const m of members) if (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) owners.set(m.name.text, area.name);
      }
      if (!found) throw new Error(`${path.join(dir, file)} declares no *Tables interface`);
    }
  }
  return owners;
}

/** The table a builder argument names: `'t'`, `'t as x'`, `'public.t'`, `'t.c'` (a column reference's table). */
function tableOf(name: string): string {
  const bare = name
    .trim()
    .split(/\s+as\s+/i)[0]!
    .trim();
  const parts = bare.split('.').map((p) => p.replace(/"/g, ''));
  if (parts[0] === 'public' && parts.length > 1) return parts[1]!;
  return parts[0]!;
}

interface FileScan {
  /** tables the file names (CTE names excluded) */
  tables: Set<string>;
  /** statement-starting builder calls and sql templates, with their lines */
  sql: Array<{ call: string; line: number }>;
}

/** Reads one file's syntax tree: the tables it names and where it writes SQL. */
export function scanSource(fileName: string, text: string): FileScan {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  // `const T = 'table'` anywhere in the file
  const constants = new Map<string, string>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const init = unwrap(node.initializer);
      if (ts.isStringLiteralLike(init)) constants.set(node.name.text, init.text);
    }
    ts.forEachChild(node, collect);
  };
  collect(source);

  /** the string values an expression stands for: literals, constants, arrays and `as const` of them */
  function strings(expr: ts.Expression): string[] {
    const e = unwrap(expr);
    if (ts.isStringLiteralLike(e)) return [e.text];
    if (ts.isIdentifier(e)) return constants.has(e.text) ? [constants.get(e.text)!] : [];
    if (ts.isArrayLiteralExpression(e)) return e.elements.flatMap((x) => (ts.isExpression(x) ? strings(x) : []));
    if (ts.isTemplateExpression(e)) return [templateText(e)];
    // sql.raw(T) or sql.table(T) inside a template stands for T's text
    if (ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.arguments[0]) {
      const helper = e.expression;
      if (ts.isIdentifier(helper.expression) && helper.expression.text === 'sql' && ['raw', 'table'].includes(helper.name.text))
        return strings(e.arguments[0]);
    }
    return [];
  }
  /** a template's text, with constant substitutions filled in */
  function templateText(t: ts.TemplateExpression | ts.NoSubstitutionTemplateLiteral): string {
    if (ts.isNoSubstitutionTemplateLiteral(t)) return t.text;
    let out = t.head.text;
    for (const span of t.templateSpans) out += `${strings(span.expression)[0] ?? ' ? '}${span.literal.text}`;
    return out;
  }

  const named: string[] = [];
  const ctes = new Set<string>();
  const rawTexts: string[] = [];
  const sqlSites: FileScan['sql'] = [];
  const lineOf = (n: ts.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1;

  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const target = node.expression.expression;
      const first = node.arguments[0];
      const isSqlHelper = ts.isIdentifier(target) && target.text === 'sql';
      if (isSqlHelper && (method === 'table' || method === 'ref') && first) named.push(...strings(first).map(tableOf));
      else if (isSqlHelper && method === 'id') {
        const ids = node.arguments.flatMap((a) => strings(a));
        const table = ids[0] === 'public' && ids.length > 1 ? ids[1] : ids[0];
        if (table) named.push(table);
      } else if (isSqlHelper && method === 'raw') {
        for (const a of node.arguments) rawTexts.push(...strings(a));
      } else if (CTE_CALLS.has(method) && first) {
        for (const s of strings(first)) ctes.add(s.split('(')[0]!.trim());
      } else if (TABLE_ARG_CALLS.has(method) && first) {
        named.push(...strings(first).map(tableOf));
      }
      if (STATEMENT_CALLS.has(method)) sqlSites.push({ call: `${method}(...)`, line: lineOf(node) });
    }
    if (ts.isTaggedTemplateExpression(node)) {
      const tag = node.tag;
      const isSql =
        (ts.isIdentifier(tag) && tag.text === 'sql') ||
        (ts.isPropertyAccessExpression(tag) && ts.isIdentifier(tag.expression) && tag.expression.text === 'sql');
      if (isSql) {
        rawTexts.push(templateText(node.template));
        sqlSites.push({ call: 'sql`...`', line: lineOf(node) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  for (const text of rawTexts) for (const m of text.matchAll(RAW_TABLE)) named.push(m[1]!.toLowerCase());
  return { tables: new Set(named.filter((t) => !ctes.has(t))), sql: sqlSites };
}

/** an expression without parentheses, `as const`, `satisfies` and non-null assertions */
function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e))
    e = e.expression;
  return e;
}

/** The files the rules read: each area's files (not its `*.tables.ts`) and the root's. */
function checkedFiles(modulesDir: string, mainDir: string | null): Array<{ file: string; area: string }> {
  const out: Array<{ file: string; area: string }> = [];
  for (const file of files(modulesDir)) {
    const rel = path.relative(modulesDir, file).split(path.sep);
    if (rel.length < 2 || file.endsWith('.tables.ts')) continue;
    out.push({ file, area: rel[0]! });
  }
  if (mainDir) for (const file of files(mainDir)) out.push({ file, area: 'main' });
  return out;
}

/** Every reference in `src/modules/<area>/**` to a table another area owns, and in `src/main/**` to any table. */
export function tableViolations(modulesDir: string, mainDir: string | null = null): TableViolation[] {
  const owners = tableOwners(modulesDir);
  const out: TableViolation[] = [];
  for (const { file, area } of checkedFiles(modulesDir, mainDir)) {
    const { tables } = scanSource(file, fs.readFileSync(file, 'utf8'));
    for (const table of [...tables].sort()) {
      const owner = owners.get(table);
      if (owner !== undefined && owner !== area) out.push({ file, area, table, owner });
      else if (owner === undefined && area === 'main' && PLATFORM_TABLES.includes(table))
        out.push({ file, area, table, owner: 'platform' });
    }
  }
  return out;
}

/** Every statement or `sql` template in `src/modules/**` outside a `*.repository.ts` file, and in `src/main/**`. */
export function sqlPlacementViolations(modulesDir: string, mainDir: string | null = null): SqlPlacementViolation[] {
  const out: SqlPlacementViolation[] = [];
  for (const { file } of checkedFiles(modulesDir, mainDir)) {
    if (file.endsWith('.repository.ts')) continue;
    for (const site of scanSource(file, fs.readFileSync(file, 'utf8')).sql) out.push({ file, ...site });
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tables = tableViolations(path.resolve('src/modules'), path.resolve('src/main'));
  for (const v of tables) console.error(`${path.relative('.', v.file)}: ${v.area} names ${v.table}, a table of ${v.owner}`);
  const placed = sqlPlacementViolations(path.resolve('src/modules'), path.resolve('src/main'));
  for (const v of placed) console.error(`${path.relative('.', v.file)}:${v.line}: ${v.call} outside a repository`);
  if (tables.length + placed.length > 0) process.exit(1);
  console.log('table rules: every area names only its own tables; SQL only in repositories');
}
