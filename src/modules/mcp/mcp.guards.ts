/**
 * The checks the MCP specification asks of a Streamable HTTP server before anything else: the Host is
 * one this service answers as (a DNS-rebinding page reaches a loopback server under a name of its
 * own), and a browser's Origin is an allowed one (requests without Origin, as MCP clients send, pass).
 */
import type { FastifyRequest } from 'fastify';
import { dashboardOrigins } from '../../http/dashboard-auth.js';
import { AppError } from '../../platform/errors.js';
import type { AppDeps } from '../app-deps.js';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((x) => x.trim().replace(/\/+$/, '').toLowerCase())
    .filter(Boolean);

export interface McpGuards {
  allowedHosts: string[];
  allowedOrigins: string[];
  check(request: FastifyRequest): void;
}

export function mcpGuards(deps: Pick<AppDeps, 'config'>): McpGuards {
  const env = deps.config.env;
  const base = new URL(deps.config.publicBaseUrl);
  let allowedHosts = list(env.SERVICE_MCP_ALLOWED_HOSTS);
  if (allowedHosts.length === 0) {
    allowedHosts = [base.host.toLowerCase()];
    if (LOOPBACK.includes(base.hostname)) {
      const port = base.port ? `:${base.port}` : '';
      allowedHosts = [...new Set([...allowedHosts, ...LOOPBACK.map((h) => `${h}${port}`)])];
    }
  }
  let allowedOrigins = list(env.SERVICE_MCP_ALLOWED_ORIGINS);
  if (allowedOrigins.length === 0) allowedOrigins = dashboardOrigins(deps);
  return {
    allowedHosts,
    allowedOrigins,
    check(request) {
      const host = (request.headers.host ?? '').toLowerCase();
      if (!allowedHosts.includes(host))
        throw new AppError('request_origin_not_allowed', { message: `The MCP endpoint is not served at the host ${host || '(none)'}.` });
      const origin = request.headers.origin;
      if (origin !== undefined && !allowedOrigins.includes(origin.trim().replace(/\/+$/, '').toLowerCase()))
        throw new AppError('mcp_origin_not_allowed', { message: `Requests from the origin ${origin} may not call the MCP endpoint.` });
    },
  };
}
