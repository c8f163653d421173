/**
 * Layer rules (docs/architecture.md): imports point one way.
 *   platform/  knows no module, no HTTP, no provider, no sandbox
 *   providers/ know platforms only: no module, no HTTP, no sandbox, no config
 *   http/      stays generic: no module
 *   modules/   never import the composition root (main/)
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
