/** The tool API area: UTM and QR tools with their own keys, limits and idempotency. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import type { UsersReadPort } from '../identity/identity.module.js';
import { TOOL_API_PREFIX, toolErrorEnvelope } from './tool-envelope.js';
import { toolsIdempotencyPruneJob } from './tools.jobs.js';
import { createToolAuth, registerToolRoutes } from './tools.routes.js';

/**
 * What the tool API uses of the shared pieces (its keys, windows and idempotency records, and the clock)
 * and the identity area's users port (the key owners' tiers).
 */
export type ToolsPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock'> & { users: Pick<UsersReadPort, 'tierOf'> };

export function createToolsModule(deps: ToolsPorts): AreaModule {
  const auth = createToolAuth(deps);
  return {
    read: undefined,
    jobs: [toolsIdempotencyPruneJob(deps.database.db, () => deps.clock.now())],
    routes: (app: FastifyInstance) => registerToolRoutes(app, deps, auth),
    errorEnvelope: { prefix: TOOL_API_PREFIX, render: toolErrorEnvelope },
    authScheme: auth.scheme,
  };
}
