/**
 * `service-api mcp`: the MCP server (packages/mcp) for AI agents on stdio, what MCP hosts launch for
 * local use with an API key. It is a client of the API: it needs the API's base URL and a credential
 * (API key or OAuth access token), from flags or SERVICE_API_BASE_URL / SERVICE_API_TOKEN. Remote and
 * browser-adjacent use goes to the service's own /mcp endpoint (Streamable HTTP with OAuth sign-in,
 * Origin and Host checks; docs/mcp.md), so this command has no HTTP mode of its own.
 */

import type { Config } from '../config.js';
import { args, type CliCommand } from '../platform/cli/cli-kit.js';
import { AppError } from '../platform/errors.js';

export const mcpCommands: CliCommand<Config>[] = [
  {
    name: 'mcp',
    usage: "mcp                         MCP server for AI agents on stdio (remote clients: the service's /mcp)",
    async run({ config, argv }) {
      const { values } = args(argv, { http: { type: 'string' }, 'base-url': { type: 'string' }, token: { type: 'string' } });
      const baseUrl = (values['base-url'] as string | undefined) ?? process.env.SERVICE_API_BASE_URL ?? config.publicBaseUrl;
      if (values.http !== undefined) {
        throw new AppError('invalid_request', {
          message: `service-api mcp serves stdio only. For Streamable HTTP connect the MCP client to ${baseUrl}/mcp (OAuth sign-in; see docs/mcp.md).`,
        });
      }
      const token = (values.token as string | undefined) ?? process.env.SERVICE_API_TOKEN;
      if (!token) {
        throw new AppError('invalid_request', {
          message: 'service-api mcp needs a credential: --token or SERVICE_API_TOKEN (an API key sk_...).',
        });
      }
      try {
        // loaded here: every other command (and the server processes the CLI starts) does without the MCP SDK
        const { serveStdio } = await import('@service-api/mcp');
        await serveStdio({ baseUrl, token });
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw new AppError('invalid_request', { message: (err as Error).message });
      }
      // stdio: the process lives until the host closes stdin
      await new Promise<void>((resolve) => process.stdin.once('close', resolve));
      return 0;
    },
  },
];
