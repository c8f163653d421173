/**
 * What serving /mcp needs at run time: the MCP SDK's server transport, the MCP package's server and its
 * tool list. The module loads on the first /mcp request (mcp.module.ts imports it dynamically), so an API
 * process that serves no agent does not hold the SDK and its schema library (about 7 MB of heap; the
 * production build splits this module into its own chunk).
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type BuiltTool, createMcpServer, loadTools } from '@service-api/mcp';

export interface McpRuntime {
  tools: BuiltTool[];
  Transport: typeof StreamableHTTPServerTransport;
  isInitializeRequest: typeof isInitializeRequest;
  createMcpServer: typeof createMcpServer;
}

/** The tools are built from the API's OpenAPI document, read through `fetch` (the app, in process). */
export async function loadMcpRuntime(options: { baseUrl: string; fetch: typeof fetch }): Promise<McpRuntime> {
  const tools = await loadTools(options);
  return { tools, Transport: StreamableHTTPServerTransport, isInitializeRequest, createMcpServer };
}
