/**
 * The remote MCP endpoint area: /mcp and its protected resource metadata. Its tools are the MCP
 * package's one tool list (packages/mcp, also served on stdio by `service-api mcp`); each call runs
 * through the REST API in process with a delegation of the token's principal (identity's
 * Authenticator.delegate), so the tools have exactly the token's organization and scopes.
 */
import type { FastifyInstance } from 'fastify';
import type { AreaModule } from '../../http/area-module.js';
import type { Principal } from '../../http/principal.js';
import type { AppDeps } from '../app-deps.js';
import type { IdentityRead } from '../identity/identity.module.js';
import { mcpGuards } from './mcp.guards.js';
import { IN_PROCESS_BASE, injectFetch } from './mcp.in-process.js';
import { registerMcpRoutes } from './mcp.routes.js';
import type { McpRuntime } from './mcp.runtime.js';
import { McpSessions } from './mcp.sessions.js';

export type McpPorts = Pick<AppDeps, 'config' | 'clock'> & { identity: Pick<IdentityRead, 'authenticator'> };

export interface McpModule extends AreaModule {
  sessions: McpSessions;
}

export function createMcpModule(ports: McpPorts): McpModule {
  const sessions = new McpSessions(() => ports.clock.now().getTime());
  const { authenticator } = ports.identity;
  return {
    read: undefined,
    jobs: [],
    sessions,
    routes(app: FastifyInstance) {
      const fetch = injectFetch(app, ports.config.publicBaseUrl);
      let runtime: Promise<McpRuntime> | null = null;
      app.addHook('onClose', async () => sessions.closeAll());
      registerMcpRoutes(app, {
        publicBaseUrl: ports.config.publicBaseUrl,
        guards: mcpGuards(ports),
        sessions,
        authenticateMcp: (token) => authenticator.authenticateMcp(token),
        // the SDK and the tools load on the first /mcp request (mcp.runtime.ts says why)
        runtime: () => {
          runtime ??= import('./mcp.runtime.js')
            .then((m) => m.loadMcpRuntime({ baseUrl: IN_PROCESS_BASE, fetch }))
            .catch((err) => {
              runtime = null;
              throw err;
            });
          return runtime;
        },
        apiFor: (extra) => {
          const principal = (extra.authInfo as { extra?: { principal?: Principal } } | undefined)?.extra?.principal;
          if (!principal) throw new Error('The MCP request carries no principal.');
          const delegation = authenticator.delegate(principal);
          return { baseUrl: IN_PROCESS_BASE, token: delegation.token, fetch, maxRetries: 0, release: delegation.release };
        },
      });
    },
  };
}
