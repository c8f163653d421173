/**
 * `service-api mcp`: the MCP server (packages/mcp) for AI agents, on stdio by default (what MCP hosts
 * launch) or Streamable HTTP with --http. It is a client of the API: it needs the API's base URL and a
 * credential (API key or OAuth access token), from flags or SERVICE_API_BASE_URL / SERVICE_API_TOKEN.
 */
import { serveHttp, serveStdio } from '@service-api/mcp';
import { args, type CliCommand } from '../platform/cli/cli-kit.js';
import { AppError } from '../platform/errors.js';

export const mcpCommands: CliCommand[] = [
  {
    name: 'mcp',
    usage: 'mcp [--http PORT]           MCP server for AI agents (stdio; Streamable HTTP with --http)',
    async run({ config, argv }) {
      const { values } = args(argv, { http: { type: 'string' }, 'base-url': { type: 'string' }, token: { type: 'string' } });
      const baseUrl = (values['base-url'] as string | undefined) ?? process.env.SERVICE_API_BASE_URL ?? config.publicBaseUrl;
      const token = (values.token as string | undefined) ?? process.env.SERVICE_API_TOKEN;
      if (!token) {
        throw new AppError('invalid_request', {
          message: 'service-api mcp needs a credential: --token or SERVICE_API_TOKEN (an API key sk_... or an OAuth access token).',
        });
      }
      if (values.http !== undefined) {
        const port = Number(values.http);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new AppError('invalid_request', { message: '--http takes a port number.' });
        const server = await serveHttp({ baseUrl, token, port });
        process.stderr.write(`service-api MCP server (Streamable HTTP) at ${server.url}, API ${baseUrl}\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await server.close();
        return 0;
      }
      await serveStdio({ baseUrl, token });
      // stdio: the process lives until the host closes stdin
      await new Promise<void>((resolve) => process.stdin.once('close', resolve));
      return 0;
    },
  },
];
