/** The tool API area: UTM and QR tools with their own keys, limits and idempotency. */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { PruneStep } from '../maintenance/maintenance.module.js';
import { bumpToolAuthVersion } from './tool-auth-cache.js';
import { TOOL_API_PREFIX, toolErrorEnvelope } from './tool-envelope.js';
import { registerToolKeyRoutes } from './tool-keys.routes.js';
import { ToolKeysService } from './tool-keys.service.js';
import { createToolAuth, registerToolRoutes, type ToolAuth, type ToolsPorts } from './tools.routes.js';
import { toolsRetentionRepository } from './tools-retention.repository.js';

/**
 * The keys service of the settings routes and the CLI: a revocation or a tier change notifies the servers
 * listening on PostgreSQL, and bumps the in-process version an embedded server's tool-auth cache reads.
 */
function sharedToolKeys(deps: ToolsPorts, auth: ToolAuth): ToolKeysService {
  const users = { ...deps.users, ...deps.usersAdmin };
  return new ToolKeysService(deps.database.db, deps.config.embedded ? deps.counters.memory : null, users, auth.changes);
}

export interface ToolsModule extends AreaModule {
  /** subscribed by the root to maintenance's prune: idempotency records past their 24 hours */
  pruneExpiredIdempotency: PruneStep;
  /** users' tiers and tool API keys (the settings routes and the operator's `users` and `tool-keys` commands) */
  keys: ToolKeysService;
  /**
   * Called by the root after a query of the embedded database's socket clients (the CLI writes through it):
   * this process's tool-auth cache reads keys and tiers again.
   */
  afterOutsideWrite(): Promise<void>;
  /** true while this server listens for other processes' key and tier changes (PostgreSQL; its key cache is on) */
  keysListening(): boolean;
}

export function createToolsModule(deps: ToolsPorts): ToolsModule {
  const auth = createToolAuth(deps);
  const keys = sharedToolKeys(deps, auth);
  return {
    read: undefined,
    jobs: [],
    pruneExpiredIdempotency: { name: 'tool_idempotency', prune: toolsRetentionRepository.pruneExpiredIdempotency },
    keys,
    afterOutsideWrite: () => bumpToolAuthVersion(deps.counters.memory),
    keysListening: () => (auth.changes?.version() ?? null) !== null,
    routes: (app: FastifyInstance) => {
      registerToolRoutes(app, deps, auth);
      registerToolKeyRoutes(app, keys, () => deps.clock.now());
    },
    errorEnvelope: { prefix: TOOL_API_PREFIX, render: toolErrorEnvelope },
    authScheme: auth.scheme,
  };
}
