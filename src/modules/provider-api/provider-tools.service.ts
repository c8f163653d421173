/** POST /v1/providers/tools/{toolName}: runs a provider tool through the channel's adapter and token. */

import { providerFailure, type RefusalAnswer } from '../../http/provider-failure.js';
import { AppError } from '../../platform/errors.js';
import type { Platform, ProviderToolName } from '../../providers/provider.js';
import { ProviderError } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { Db } from '../database.js';

/** The platform refused the tool's input: the route's 400, naming the input. */
const TOOL_INPUT_REFUSED: RefusalAnswer = {
  categories: ['user_content'],
  answer: (err, details) =>
    new AppError('invalid_public_provider_tool_request', {
      message: `${err.platform} refused the tool input: ${err.message}`,
      details: { ...details },
      fields: [{ path: ['input'], source: 'body' }],
    }),
};

export class ProviderToolsService {
  constructor(private readonly deps: { db: Db; registry: ProviderRegistry; channels: ChannelsReadPort }) {}

  async run(organizationId: string, toolName: ProviderToolName, channelAccountId: string, input: Record<string, unknown>) {
    const channel = (await this.deps.channels.factsForPublishing(this.deps.db, organizationId, [channelAccountId])).get(channelAccountId);
    if (!channel)
      throw new AppError('channel_account_not_found', {
        message: `No channel account ${channelAccountId} in the principal organization.`,
      });
    const provider = this.deps.registry.get(channel.platform as Platform);
    if (!provider.capability.toolNames.includes(toolName)) {
      throw new AppError('provider_tool_unsupported', {
        message: `${channel.platform} does not support ${toolName}; it supports ${provider.capability.toolNames.join(', ') || 'no tools'}.`,
        details: {
          platform: channel.platform,
          supportedTools: provider.capability.toolNames,
        },
      });
    }
    const { ctx } = await this.deps.channels.usableChannel(this.deps.db, organizationId, channelAccountId);
    try {
      return {
        tool: toolName,
        results: await provider.runTool(ctx, toolName, input),
      };
    } catch (err) {
      if (err instanceof ProviderError) throw providerFailure(err, TOOL_INPUT_REFUSED);
      // anything else from an adapter may carry request URLs with tokens: answer without it, log nothing of it
      throw new AppError('provider_request_failed', {
        message: `The ${channel.platform} call failed.`,
        details: { platform: channel.platform, providerCategory: 'unknown' },
      });
    }
  }
}
