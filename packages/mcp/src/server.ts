/**
 * The MCP server: tools from tools.ts, calls made with @service-api/sdk (bearer auth, safe retries,
 * idempotency keys). Answers are the API's JSON; an API error is a tool error whose text is the
 * ErrorResponse (with `issues` and `fields`), so an agent can read what to fix and call again.
 *
 * One server definition serves both transports: `serveStdio` (what `service-api mcp` runs, with an API
 * key) and the service's /mcp endpoint, which gives `createMcpServer` an `apiFor` that calls the API in
 * process for the OAuth principal of each request.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
// the SDK's source (this package runs inside the repository; the SDK's package form is built from it)
import { createServiceApi, type ServiceApi, type ServiceApiOptions } from '../../sdk/src/index.js';
import { type BuiltTool, buildTools, toRequest, unknownArguments } from './tools.js';

export const MCP_SERVER_NAME = 'service-api';
export const MCP_SERVER_VERSION = '0.2.0';

export interface McpOptions {
  /** the API's base URL, e.g. http://localhost:8080 */
  baseUrl: string;
  /** API key (sk_...) or OAuth access token for the API */
  token: string;
  fetch?: typeof fetch;
}

/** How one tool call reaches the API (client options); release() runs when the call ends. */
export interface ApiLease extends ServiceApiOptions {
  release?(): void;
}

/** Answers the API client for a request (its `extra` carries the transport's authInfo). */
export type ApiFor = (extra: { authInfo?: unknown; sessionId?: string }) => ApiLease | Promise<ApiLease>;

/** Reads the service's OpenAPI document and answers the tools it supports. */
export async function loadTools(opts: { baseUrl: string; fetch?: typeof fetch }): Promise<BuiltTool[]> {
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/v1/openapi.json`;
  let res: Response;
  try {
    res = await (opts.fetch ?? fetch)(url);
  } catch (err) {
    const cause = (err as Error).cause as Error | undefined;
    throw new Error(
      `Could not reach the API at ${opts.baseUrl} (GET ${url}): ${cause?.message ?? (err as Error).message}. Check --base-url or SERVICE_API_BASE_URL (the server listens on port 8080 by default).`,
    );
  }
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: is ${opts.baseUrl} the base URL of service-api?`);
  return buildTools((await res.json()) as Record<string, unknown>);
}

function text(value: unknown, isError = false, next?: string) {
  const content = [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }];
  if (next) content.push({ type: 'text' as const, text: `Next: ${next}` });
  return { content, isError };
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
  const call = (
    api as unknown as Record<string, (p: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>>
  )[method]!;
  const { data, error, response } = await call(tool.path, {
    params: { path: req.path, query: req.query },
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
  if (error !== undefined || !response.ok) return text({ status: response.status, ...(error as object) }, true);
  // a dry run answers what would happen; the next step follows a performed write only
  const performed = tool.mode !== 'read' && (req.confirmed || !tool.hasDryRun);
  return text(data ?? { status: response.status }, false, performed ? tool.next : undefined);
}

/** One MCP server instance (one per session for Streamable HTTP, one for stdio). */
export function createMcpServer(tools: BuiltTool[], apiFor: ApiFor): Server {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: {
        readOnlyHint: t.mode === 'read',
        destructiveHint: t.name.startsWith('cancel_'),
        openWorldHint: t.mode !== 'read',
      },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) return text(`Unknown tool ${request.params.name}; list_tools names the available ones.`, true);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const unknown = unknownArguments(tool, args);
    if (unknown.length > 0) {
      return text(
        {
          status: 400,
          error: 'invalid_request',
          message: `Unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. ${tool.name} takes: ${Object.keys(tool.inputSchema.properties).join(', ')}.`,
          fields: unknown.map((k) => ({ path: [k], source: 'arguments' })),
        },
        true,
      );
    }
    const { release, ...options } = await apiFor(extra);
    try {
      return await callTool(createServiceApi(options), tool, args);
    } catch (err) {
      return text(`The API could not be reached: ${(err as Error).message}`, true);
    } finally {
      release?.();
    }
  });
  return server;
}

/** Serves over stdio (what desktop MCP hosts launch), calling the API at baseUrl with the token. */
export async function serveStdio(opts: McpOptions): Promise<void> {
  const server = createMcpServer(await loadTools(opts), () => ({ baseUrl: opts.baseUrl, token: opts.token, fetch: opts.fetch }));
  await server.connect(new StdioServerTransport());
}
