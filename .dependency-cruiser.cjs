/**
 * Layer rules (docs/architecture.md): imports point one way.
 *   platform/  knows no module, no HTTP, no provider, no sandbox
 *   providers/ know platforms only: no module, no HTTP, no sandbox, no config
 *   http/      stays generic: no module
 *   modules/   never import the composition root (main/); an area imports another area only through
 *              that area's public file, <area>/<area>.module.ts, and only its types (the read ports
 *              and module types; the root hands the implementations over)
 * Checked by test/architecture/dependencies.test.ts on every `npm test`.
 */
module.exports = {
  forbidden: [
    {
      name: 'platform-is-the-bottom-layer',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/(modules|http|providers|sandbox|main)/' },
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
      to: { path: '^src/(modules|main|sandbox)/' },
    },
    {
      name: 'modules-do-not-import-the-root',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/main/' },
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
