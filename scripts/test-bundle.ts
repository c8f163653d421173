/**
 * The whole suite's test files bundled once with esbuild before a run (scripts/run-tests.ts), so each test
 * process loads plain JavaScript instead of going through the TypeScript loader.
 *
 * Why: the loader hooks every module a process loads, the dependencies' too. Importing the test harness
 * took 2.6-2.8 s of CPU through tsx and 1.0 s from a bundle on the same host (and the same 2.5 s when the
 * bundle itself was loaded with tsx registered: the cost is the hooks, not our module count). A run starts
 * about 300 test processes on a two-core CI host whose cores the suite keeps busy, so every second of start-up
 * is wall time.
 *
 * What stays the same: each module's `import.meta.url`, `import.meta.dirname` and `import.meta.filename`
 * are its source file's (replaced at bundle time), so fixtures, migrations, the web build and the QR
 * worker's bootstrap are found where they are; esbuild is the compiler tsx uses, with the same tsconfig;
 * `keepNames` keeps class and function names; dependencies stay in node_modules.
 *
 * The same build bundles the command (src/main/cli.ts): the service processes and CLI calls the tests
 * start (test/support/service-process.ts) run it: 0.6 s of CPU to print the usage, against 1.9 s through
 * bin/service-api.mjs. One test still starts the server through bin/service-api.mjs (test/main/cli.test.ts),
 * and test/main/production-build.test.ts runs the production bundle. SERVICE_TEST_BUNDLE=0 runs everything
 * from the sources through tsx instead (a stack trace then points at the TypeScript line).
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { SERVICE_BUNDLE_OPTIONS } from './bundle-options.js';

const CLI = 'src/main/cli.ts';
const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;

/** Each source file's import.meta values, written in as string literals. */
const sourceImportMeta: Plugin = {
  name: 'source-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = fs.readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const values = { url: pathToFileURL(args.path).href, dirname: path.dirname(args.path), filename: args.path };
      return {
        contents: source.replace(IMPORT_META, (_, key: keyof typeof values) => JSON.stringify(values[key])),
        loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js',
      };
    });
  },
};

/**
 * Bundles `files` (test files, relative to the repository root) and the command into `outdir`, which must
 * lie inside the repository so the bundles find node_modules. Answers the bundled file of each test file
 * and the bundled command.
 */
export async function bundleTests(files: string[], outdir: string): Promise<{ tests: Map<string, string>; cli: string }> {
  fs.rmSync(outdir, { recursive: true, force: true });
  const entries = Object.fromEntries([...files, CLI].map((f) => [f.replace(/\.ts$/, ''), path.resolve(f)]));
  // the service's bundle options (scripts/bundle-options.ts), with names kept and import.meta as above
  await build({
    entryPoints: entries,
    outdir,
    ...SERVICE_BUNDLE_OPTIONS,
    keepNames: true,
    plugins: [...SERVICE_BUNDLE_OPTIONS.plugins, sourceImportMeta],
  });
  const bundled = (f: string) => path.join(outdir, f.replace(/\.ts$/, '.js'));
  return { tests: new Map(files.map((f) => [f, bundled(f)])), cli: bundled(CLI) };
}
