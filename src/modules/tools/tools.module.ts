/** The tool API area: UTM and QR tools with their own keys, limits and idempotency. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import type { AreaModule } from '../../http/area-module.js';
import { TOOL_API_PREFIX, toolErrorEnvelope } from './tool-envelope.js';
import { toolsIdempotencyPruneJob } from './tools.jobs.js';
import { registerToolRoutes } from './tools.routes.js';

export function createToolsModule(deps: AppDeps): AreaModule {
  return {
    read: undefined,
    jobs: [toolsIdempotencyPruneJob(deps.database.db, () => deps.clock.now())],
    routes: (app: FastifyInstance) => registerToolRoutes(app, deps),
    errorEnvelope: { prefix: TOOL_API_PREFIX, render: toolErrorEnvelope },
  };
}
