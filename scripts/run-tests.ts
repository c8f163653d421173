/**
 * Runs the whole suite with Node's test runner: every test/**\/*.test.ts file (Node 20 has no glob
 * support in --test). Extra arguments are passed through (e.g. a file filter: npm test -- media).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function find(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'support' || e.name === 'fixtures' ? [] : find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = find('test')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
console.error(
  `running ${files.length} test files (database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}, redis: ${process.env.REDIS_URL ? 'yes' : 'no'})`,
);
// --test-force-exit: a file whose tests have all finished ends even if a handle (a pool, a timer of a second
// test context) is still open; every test keeps its own timeout, so a hung test still fails
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-force-exit', '--test-concurrency=2', '--test-timeout=300000', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(res.status ?? 1);
