/**
 * The MCP server: tools from tools.ts, calls made with @service-api/sdk (bearer auth, safe retries,
 * idempotency keys). Answers are the API's JSON; an API error is a tool error whose text is the
 * ErrorResponse (with `issues` and `fields`), so an agent can read what to fix and call again.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServiceApi, type ServiceApi } from '@service-api/sdk';
import { type BuiltTool, buildTools, toRequest } from './tools.js';

export const MCP_SERVER_NAME = 'service-api';
export const MCP_SERVER_VERSION = '0.1.0';

export interface McpOptions {
  /** the API's base URL, e.g. http://localhost:3000 */
  baseUrl: string;
  /** API key (sk_...) or OAuth access token */
  token: string;
  fetch?: typeof fetch;
}

/** Reads the service's OpenAPI document and answers the tools it supports. */
export async function loadTools(opts: McpOptions): Promise<BuiltTool[]> {
  const res = await (opts.fetch ?? fetch)(`${opts.baseUrl.replace(/\/+$/, '')}/v1/openapi.json`);
  if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  return buildTools((await res.json()) as Record<string, unknown>);
}

function text(value: unknown, isError = false) {
  return { content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }], isError };
}

async function callTool(api: ServiceApi, tool: BuiltTool, args: Record<string, unknown>) {
  const req = toRequest(tool, args);
  if (tool.mode === 'confirm_write' && !req.confirmed) {
    return text({
      performed: false,
      message: 'Nothing was changed. Call again with confirm: true to perform this request.',
      request: { method: tool.method.toUpperCase(), path: tool.path, pathParams: req.path, query: req.query, body: req.body },
    });
  }
  const method = tool.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  const call = (api as unknown as Record<string, (p: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>>)[method]!;
  const { data, error, response } = await call(tool.path, {
    params: { path: req.path, query: req.query },
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
  if (error !== undefined || !response.ok) return text({ status: response.status, ...(error as object) }, true);
  return text(data ?? { status: response.status });
}

/** One MCP server instance (one per connection for Streamable HTTP, one for stdio). */
export function createMcpServer(opts: McpOptions, tools: BuiltTool[]): Server {
  const api = createServiceApi({ baseUrl: opts.baseUrl, token: opts.token, fetch: opts.fetch });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { readOnlyHint: t.mode === 'read', destructiveHint: t.name.startsWith('cancel_') },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) return text(`Unknown tool ${request.params.name}`, true);
    try {
      return await callTool(api, tool, (request.params.arguments ?? {}) as Record<string, unknown>);
    } catch (err) {
      return text(`The API could not be reached: ${(err as Error).message}`, true);
    }
  });
  return server;
}

/** Serves over stdio (what desktop MCP hosts launch). */
export async function serveStdio(opts: McpOptions): Promise<void> {
  const server = createMcpServer(opts, await loadTools(opts));
  await server.connect(new StdioServerTransport());
}

/** Serves Streamable HTTP at POST/GET/DELETE /mcp (stateless: a fresh server per request). */
export async function serveHttp(opts: McpOptions & { port: number; host?: string }): Promise<{ url: string; close(): Promise<void> }> {
  const tools = await loadTools(opts);
  const http: HttpServer = createServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_found' }));
      return;
    }
    const server = createMcpServer(opts, tools);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'mcp_error', message: (err as Error).message }));
    }
  });
  await new Promise<void>((resolve) => http.listen(opts.port, opts.host ?? '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}/mcp`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}
