/**
 * Layer rules (docs/architecture.md): imports point one way.
 *   root       src/main/, src/app.ts and src/app-deps.ts: nothing below imports it; app.ts takes nothing from main/
 *   sandbox/   only the root knows it
 *   platform/  knows no module, no HTTP, no provider, no sandbox, no config.ts (it is handed settings)
 *   providers/ know platforms only: no module, no HTTP, no sandbox, no config
 *   http/      stays generic: no module, no provider
 *   modules/   an area imports another area only through that area's public file, <area>/<area>.module.ts,
 *              and only its types (the read ports and module types; the root hands the implementations over)
 *   main/      imports an area only through its module file and its command files (<area>/*.cli.ts)
 *   no circle of imports anywhere (type-only imports included)
 * Checked by `npm run lint:deps` and test/architecture/dependencies.test.ts on every `npm test`; nothing is
 * exempt (no known-violations list).
 */
const ROOT = ['^src/main/', '^src/app\\.ts$', '^src/app-deps\\.ts$'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other (even types only) are one unit in two places: move the shared part down',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'nothing-imports-the-root',
      comment: 'The composition root (main/, app.ts, app-deps.ts) wires everything; nothing below it may reach back up',
      severity: 'error',
      from: { pathNot: ROOT },
      to: { path: ROOT },
    },
    {
      name: 'only-the-root-knows-the-sandbox',
      severity: 'error',
      from: { pathNot: [...ROOT, '^src/sandbox/'] },
      to: { path: '^src/sandbox/' },
    },
    {
      name: 'app-takes-nothing-from-main',
      comment: 'buildApp declares what it reads of the root (AppRoot); main/ builds it',
      severity: 'error',
      from: { path: '^src/app\\.ts$' },
      to: { path: '^src/main/' },
    },
    {
      name: 'platform-is-the-bottom-layer',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: ['^src/(modules|http|providers|sandbox|main)/', '^src/config'] },
    },
    {
      name: 'providers-know-platforms-only',
      severity: 'error',
      from: { path: '^src/providers/' },
      to: { path: ['^src/(modules|http|sandbox|main)/', '^src/config\\.ts$', '^src/app'] },
    },
    {
      name: 'http-stays-generic',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: ['^src/(modules|main|sandbox|providers)/', '^src/app'] },
    },
    {
      name: 'modules-do-not-import-the-root',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/main/' },
    },
    {
      name: 'the-root-meets-areas-through-their-public-files',
      comment:
        'main/ builds each area from its module file, <area>/<area>.module.ts, and lists its commands from <area>/*.cli.ts; never its services, repositories or helpers',
      severity: 'error',
      from: { path: '^src/main/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/([^/]+)/\\1\\.module\\.ts$', '^src/modules/[^/]+/[^/]+\\.cli\\.ts$'] },
    },
    {
      name: 'areas-meet-through-their-module',
      comment:
        "An area imports another area only through its public file, <area>/<area>.module.ts: never its repository, tables, services or helpers (its read ports are exported there)",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/([^/]+)/\\1\\.module\\.ts$'] },
    },
    {
      name: 'areas-import-types-of-each-other',
      comment: "What an area imports from another area's module file is types only; the root hands over the implementations",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/\\1\\.module\\.ts$', pathNot: '^src/modules/$1/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
