export {
  type ApiFor,
  type ApiLease,
  createMcpServer,
  loadTools,
  MCP_SERVER_NAME,
  MCP_SERVER_VERSION,
  type McpOptions,
  serveStdio,
} from './server.js';
export { type BuiltTool, buildTools, TOOL_SPECS, type ToolSpec, toRequest, unknownArguments } from './tools.js';
