/**
 * The service's CLI built by `npm run build`'s own function (scripts/build-service.ts), for benchmarks that
 * run `service-api worker` processes: they measure the production bundle, not the TypeScript loader (which,
 * among other things, redefines the name of every named closure it creates).
 */
import path from 'node:path';
import { buildService } from '../../scripts/build-service.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const built = new Map<string, Promise<string>>();

/** Builds the bundle under dist/<name>/ (once per run) and answers the path of its CLI entry. */
export function bundleServiceCli(name: string): Promise<string> {
  let cli = built.get(name);
  if (!cli) {
    cli = buildService(path.join(ROOT, 'dist', name));
    built.set(name, cli);
  }
  return cli;
}
