/** Provider capabilities (any valid credential) and provider tools (channels:read). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/public-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderCapabilitiesResponse, ProviderToolParams, ProviderToolRequest, ProviderToolResponse } from './provider-api.schemas.js';
import { capabilitiesResponse } from './provider-catalog.js';
import type { ProviderToolsService } from './provider-tools.service.js';

export function registerProviderRoutes(root: FastifyInstance, registry: ProviderRegistry, tools: ProviderToolsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  // capability data is static per process: built once
  const capabilities = capabilitiesResponse(registry.all());

  app.get(
    '/v1/providers/capabilities',
    {
      config: { auth: { scope: 'any' } },
      schema: {
        operationId: 'listProviderCapabilities',
        tags: ['Provider Tools'],
        summary: 'Platform capabilities, tools and plugs',
        description:
          'For every platform: media rule, text limit, required scopes, settings and setting rules, tools, plugs and rate-limit policy. Plan validation uses the same data.',
        response: {
          200: ProviderCapabilitiesResponse,
        },
      },
    },
    async () => capabilities,
  );

  app.post(
    '/v1/providers/tools/:toolName',
    {
      config: {
        auth: { scope: 'channels:read' },
        validationCode: 'invalid_public_provider_tool_request',
      },
      schema: {
        operationId: 'runProviderTool',
        tags: ['Provider Tools'],
        summary: 'Run a provider tool for a channel account',
        description:
          "Runs the tool through the channel's platform with its stored token. 400 provider_tool_unsupported when the platform has no such tool; 409 channel_account_not_connected when the channel is not connected or the platform refuses its token; 429 provider_rate_limited with Retry-After; 502 provider_request_failed otherwise.",
        params: ProviderToolParams,
        body: ProviderToolRequest,
        response: {
          200: ProviderToolResponse,
          ...errorResponses(
            'invalid_public_provider_tool_request',
            'provider_tool_unsupported',
            'channel_account_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
          ),
        },
      },
    },
    async (request) =>
      tools.run(
        principalOf(request).organizationId,
        request.params.toolName,
        request.body.channelAccountId,
        (request.body.input ?? {}) as Record<string, unknown>,
      ),
  );
}
