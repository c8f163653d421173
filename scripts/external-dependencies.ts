/**
 * The esbuild plugin of every bundle of the service (the production build, the API benchmark's server):
 * dependencies stay in node_modules; the repository's own packages (`@service-api/*`, TypeScript sources
 * under packages/) are bundled, since plain Node cannot load their .ts entry points.
 */
import type { Plugin } from 'esbuild';

export const externalDependencies: Plugin = {
  name: 'external-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@service-api/') ? undefined : { path: args.path, external: true }));
  },
};
