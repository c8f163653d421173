/**
 * A CLI command runs on the composition root, as the API does: `withRoot` opens the database for the one
 * command (`openForCommand`: a running embedded server's database through its socket, whose every client
 * query makes that server's tool-auth cache read again), migrates it, composes the root over it, runs the
 * command and closes. The areas' command files take an opener of the part they use (`CliOpener`).
 */
import type { Config } from '../config.js';
import type { IdentityModule } from '../modules/identity/identity.module.js';
import type { ToolsModule } from '../modules/tools/tools.module.js';
import { type CliOpener, type DatabaseIntent, openForCommand } from '../platform/cli/cli-kit.js';
import { type Counters, closeCounters, createCounters } from '../platform/counters/index.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { AppError } from '../platform/errors.js';
import { createJobQueue } from '../platform/queue/job-queue.js';
import { composeRoot, type Root } from './composition.js';
import { processDeps } from './runtime.js';

export async function withRoot<T>(config: Config, fn: (root: Root) => Promise<T>, intent: DatabaseIntent = {}): Promise<T> {
  const database = await openForCommand(config, intent);
  let counters: Counters | null = null;
  let root: Root | null = null;
  try {
    await migrateToLatest(database.db);
    // no command reaches for Redis: the servers learn of changes to what they cache from the database
    counters = createCounters(undefined);
    // the queue is never started: no command sends a job
    const jobs = createJobQueue(database, { supervise: false, schedule: false });
    root = composeRoot(processDeps(config, database, counters, jobs));
    return await fn(root);
  } finally {
    await root?.areas.webhooks.deliverer.close();
    if (counters) await closeCounters(counters);
    await database.close();
  }
}

/** `withRoot` for a command scoped to one organization: an unknown organization is refused before fn runs. */
export function withOrganization<T>(config: Config, organizationId: string, fn: (areas: Root['areas']) => Promise<T>): Promise<T> {
  return withRoot(config, async ({ areas }) => {
    await areas.identity.service.requireOrganization(organizationId);
    return fn(areas);
  });
}

/** `withRoot` for a command scoped to one brand: fn gets the brand's organization; an unknown brand is refused. */
export function withBrand<T>(
  config: Config,
  brandId: string,
  fn: (areas: Root['areas'], organizationId: string) => Promise<T>,
): Promise<T> {
  return withRoot(config, async ({ areas }) => {
    const organizationId = await areas.brands.service.organizationOf(brandId);
    if (!organizationId) throw new AppError('invalid_request', { message: `No brand ${brandId}.` });
    return fn(areas, organizationId);
  });
}

/** The identity area's part of the root, for `identity/auth.cli.ts`. */
export const openIdentity: CliOpener<Pick<IdentityModule, 'service' | 'credentials'>, Config> = (config, fn, intent) =>
  withRoot(config, (root) => fn(root.areas.identity), intent);

/** The tool API's keys service of the root, for `tools/tools.cli.ts`. */
export const openToolKeys: CliOpener<ToolsModule['keys'], Config> = (config, fn, intent) =>
  withRoot(config, (root) => fn(root.areas.tools.keys), intent);
