export { createMcpServer, loadTools, MCP_SERVER_NAME, MCP_SERVER_VERSION, type McpOptions, serveHttp, serveStdio } from './server.js';
export { buildTools, TOOL_SPECS, type BuiltTool, type ToolSpec } from './tools.js';
