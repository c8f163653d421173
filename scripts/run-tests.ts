/**
 * Runs the whole suite with Node's test runner: every test/**\/*.test.ts file (Node 20 has no glob
 * support in --test). Extra arguments are passed through (e.g. a file filter: npm test -- media); `--list` prints
 * the files a run would start instead of running them.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleTests } from './test-bundle.js';

function find(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'support' || e.name === 'fixtures' ? [] : find(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/**
 * Files whose outcome does not depend on the database and counters a run selects: they start their own
 * embedded `service-api` processes (DATABASE_URL and REDIS_URL removed) or only read the repository. A whole
 * run against PostgreSQL (CI's second pass, after the embedded pass ran them) leaves them out, which saves
 * several minutes of identical work; naming them (`npm test -- cli`) or SERVICE_TEST_ALL=1 runs them anyway.
 */
const PASS_INDEPENDENT = [
  'test/architecture/dependencies.test.ts',
  'test/architecture/table-ownership.test.ts',
  'test/channels/sandbox-restart.test.ts',
  'test/channels/sandbox-store.test.ts',
  'test/main/cli-data-dir.test.ts',
  'test/main/cli-input.test.ts',
  'test/main/cli.test.ts',
  'test/main/production-build.test.ts',
  'test/main/readme.test.ts',
  'test/main/walkthrough.test.ts',
  'test/sdk/sdk-freshness.test.ts',
  // the SDK as a package (packed, installed, run, type-checked) does not depend on the server's storage
  'test/sdk/sdk-package.test.ts',
  // The Chromium walks drive the dashboard through the same API routes whose database behaviour the API
  // tests cover on both passes; one browser pass (the embedded one) keeps CI's two passes near equal length.
  'test/dashboard/browser.test.ts',
  'test/dashboard/browser-approvals.test.ts',
  'test/dashboard/browser-engagement.test.ts',
  'test/dashboard/browser-workspace.test.ts',
  'test/mcp/consent-browser.test.ts',
  // the dashboard's response headers and their effect in Chromium come from the HTTP layer alone
  'test/dashboard/security-headers.test.ts',
].map((f) => path.normalize(f));

/**
 * Files that touch no database and no counter store: neither they nor a test module they import (followed
 * through relative imports inside test/) names the harness, a service process, the connection settings or
 * the configuration loader. Their outcome is the same on both passes, so the PostgreSQL pass leaves them
 * out like the files above.
 */
const NEEDS_SERVERS = /createTestContext|support\/harness|service-process|DATABASE_URL|REDIS_URL|loadConfig|openPostgres|createCounters/;
function touchesServers(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = fs.readFileSync(file, 'utf8');
  if (NEEDS_SERVERS.test(source)) return true;
  for (const [, spec] of source.matchAll(/from\s+'(\.[^']+)'/g)) {
    const target = path.resolve(path.dirname(file), spec!.replace(/\.js$/, '.ts'));
    if (target.startsWith(path.resolve('test')) && fs.existsSync(target) && touchesServers(target, seen)) return true;
  }
  return false;
}

/**
 * With SERVICE_TEST_PASS_SPLIT=1 (CI, when it runs both passes side by side) these files of the list above
 * run on the PostgreSQL pass instead of the embedded one, so the two passes take about as long: the
 * embedded pass runs every file that depends on the database, and would otherwise also run all of these.
 */
const ON_SERVER_PASS_WHEN_SPLIT = [
  'test/main/cli.test.ts',
  'test/main/cli-input.test.ts',
  'test/channels/sandbox-restart.test.ts',
  'test/main/cli-data-dir.test.ts',
  'test/main/production-build.test.ts',
  'test/main/walkthrough.test.ts',
].map((f) => path.normalize(f));

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const skipIndependent = filters.length === 0 && !!process.env.DATABASE_URL && process.env.SERVICE_TEST_ALL !== '1';
let files = find('test')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
const split = filters.length === 0 && process.env.SERVICE_TEST_PASS_SPLIT === '1';
const onServerPass = (f: string) => split && ON_SERVER_PASS_WHEN_SPLIT.includes(path.normalize(f));
const leftOut = skipIndependent
  ? files.filter((f) => !onServerPass(f) && (PASS_INDEPENDENT.includes(path.normalize(f)) || !touchesServers(f)))
  : split
    ? files.filter(onServerPass)
    : [];
files = files.filter((f) => !leftOut.includes(f));
if (skipIndependent) console.error(`left out on PostgreSQL (they run the same on the embedded pass): ${leftOut.join(', ')}`);
else if (leftOut.length > 0) console.error(`left out on the embedded pass (the PostgreSQL pass runs them): ${leftOut.join(', ')}`);
// --list: the files this run would start, one a line, and nothing run
if (process.argv.includes('--list')) {
  console.log(files.join('\n'));
  process.exit(0);
}
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
console.error(
  `running ${files.length} test files (database: ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}, redis: ${process.env.REDIS_URL ? 'yes' : 'no'})`,
);
// The test files bundled once (scripts/test-bundle.ts): each test process then starts on plain JavaScript,
// about 1.7 s of CPU less than through the TypeScript loader, and so do the service processes the tests
// start (SERVICE_TEST_CLI: the bundled command). SERVICE_TEST_BUNDLE=0 runs the sources.
const bundleDir = path.resolve(`.test-build/${process.pid}`);
const bundled = process.env.SERVICE_TEST_BUNDLE === '0' ? null : await bundleTests(files, bundleDir);
process.once('exit', () => fs.rmSync(bundleDir, { recursive: true, force: true }));
// --test-force-exit: a file whose tests have all finished ends even if a handle (a pool, a timer of a second
// test context) is still open; every test keeps its own timeout, so a hung test still fails
const timesFile = path.join(os.tmpdir(), `service-api-test-times-${process.pid}.tsv`);
const res = spawnSync(
  process.execPath,
  [
    ...(bundled ? [] : ['--import', 'tsx']),
    '--test',
    '--test-force-exit',
    '--test-concurrency=2',
    '--test-timeout=300000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.resolve(import.meta.dirname, 'file-times-reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    ...(bundled ? files.map((f) => bundled.tests.get(f)!) : files),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test', SERVICE_TEST_TIMES_FILE: timesFile, ...(bundled ? { SERVICE_TEST_CLI: bundled.cli } : {}) },
  },
);
printSlowestFiles(timesFile);
process.exit(res.status ?? 1);

/** the slowest files by the summed time of their top-level tests (they run one after another in a file) */
function printSlowestFiles(file: string): void {
  if (!fs.existsSync(file)) return;
  const perFile = new Map<string, number>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [ms, name] = line.split('\t');
    if (!name) continue;
    // a bundled file is named by its source
    const inBundle = path.relative(bundleDir, name);
    const source = inBundle.startsWith('..') ? name : inBundle.replace(/\.js$/, '.ts');
    perFile.set(source, (perFile.get(source) ?? 0) + Number(ms));
  }
  fs.rmSync(file, { force: true });
  const rows = [...perFile.entries()].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, ms]) => s + ms, 0);
  const lines = rows.slice(0, 30).map(([name, ms]) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${path.relative(process.cwd(), name)}`);
  console.log(
    `\nslowest test files (summed top-level test time; ${rows.length} files, ${(total / 1000).toFixed(0)} s in all):\n${lines.join('\n')}`,
  );
}
