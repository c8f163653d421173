/** Channel account routes (ROUTES.md, Channels): thin handlers over ChannelsService. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import {
  ChannelAccount,
  ChannelAccountDeleteRequest,
  ChannelAccountList,
  ChannelAccountListQuery,
  ChannelAccountParams,
  ChannelAccountPatchRequest,
  ChannelAccountUpsertRequest,
} from './channels.schemas.js';
import type { ChannelsService } from './channels.service.js';

const tags = ['Channels'];

export function registerChannelRoutes(root: FastifyInstance, channels: ChannelsService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/channel-accounts',
    {
      config: {
        ...publicOrDashboard('channels:read', 'publishing.jobs.read'),
        validationCode: 'invalid_public_channel_account_query',
      },
      schema: {
        operationId: 'listChannelAccounts',
        tags,
        summary: 'List channel accounts',
        description:
          'Channel accounts of the principal organization in creation order. Disconnected (deleted) channels are listed only with state=deleted.',
        querystring: ChannelAccountListQuery,
        response: {
          200: ChannelAccountList,
          ...errorResponses('invalid_public_channel_account_query'),
        },
      },
    },
    async (request) => channels.list(organizationOf(request), request.query),
  );

  app.put(
    '/v1/channel-accounts',
    {
      config: {
        auth: { scope: 'channels:write' },
        validationCode: 'invalid_public_channel_account_request',
      },
      schema: {
        operationId: 'upsertChannelAccount',
        tags,
        summary: 'Create or update a channel account',
        description:
          'Upsert on organizationId + platform + externalAccountId: 201 when created, 200 when updated. state defaults to connected and must be reachable from the current state. ' +
          'accessTokenRef/refreshTokenRef name a secret, never a token: `sec_<id>` (a token stored by the connect flow, of this organization) or `env:NAME` (listed in SERVICE_CHANNEL_TOKEN_ENV_REFS); ' +
          "anything else is 400 channel_token_ref_unresolvable. An organizationId other than the principal's is 404 organization_not_found.",
        body: ChannelAccountUpsertRequest,
        response: {
          200: ChannelAccount,
          201: ChannelAccount,
          ...errorResponses(
            'invalid_public_channel_account_request',
            'channel_token_ref_unresolvable',
            'organization_not_found',
            'brand_not_found',
            'channel_account_invalid_transition',
          ),
        },
      },
    },
    async (request, reply) => {
      const { created, channel } = await channels.upsert(organizationOf(request), request.body);
      return reply.code(created ? 201 : 200).send(channel);
    },
  );

  app.patch(
    '/v1/channel-accounts/:channelAccountId',
    {
      config: {
        ...publicOrDashboard('channels:write', 'workspace.brands.initialize'),
        validationCode: 'invalid_public_channel_account_request',
      },
      schema: {
        operationId: 'patchChannelAccount',
        tags,
        summary: 'Update a channel account',
        description:
          'At least one field besides organizationId. A state change must be allowed by the channel state table (409 channel_account_invalid_transition); disconnecting is DELETE.',
        params: ChannelAccountParams,
        body: ChannelAccountPatchRequest,
        response: {
          200: ChannelAccount,
          ...errorResponses(
            'invalid_public_channel_account_request',
            'organization_not_found',
            'channel_account_not_found',
            'brand_not_found',
            'channel_account_invalid_transition',
            'channel_account_not_connected',
          ),
        },
      },
    },
    async (request) => channels.patch(organizationOf(request), request.params.channelAccountId, request.body),
  );

  app.delete(
    '/v1/channel-accounts/:channelAccountId',
    {
      config: {
        ...publicOrDashboard('channels:write', 'workspace.brands.initialize'),
        validationCode: 'invalid_public_channel_account_request',
      },
      schema: {
        operationId: 'disconnectChannelAccount',
        tags,
        summary: 'Disconnect a channel account',
        description:
          'Revokes the token at the platform (best effort), deletes the stored token secrets, disables the channel in publishing profiles, cancels or flags its publish targets, and moves it to state deleted. ' +
          "The answer's disconnectSummary counts what was done; a second DELETE answers alreadyDisconnected true.",
        params: ChannelAccountParams,
        body: ChannelAccountDeleteRequest,
        response: {
          200: ChannelAccount,
          ...errorResponses('invalid_public_channel_account_request', 'organization_not_found', 'channel_account_not_found'),
        },
      },
    },
    async (request) => channels.disconnect(organizationOf(request), request.params.channelAccountId, request.body),
  );
}
