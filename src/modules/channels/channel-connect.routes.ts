/**
 * The OAuth connect flow: connect-url (authenticated), the platform's redirect target (validated by
 * its single-use state, no credential), and the account choice of an in_between_steps channel.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses, NullOr, PlatformRef } from '../../http/shared-schemas.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import type { CallbackOutcome, ChannelCallbackService } from './channel-callback.service.js';
import type { ChannelChoiceService } from './channel-choice.service.js';
import type { ChannelConnectService } from './channel-connect.service.js';
import { ChannelAccount, ChannelAccountParams, ChannelChoice } from './channels.schemas.js';
import type { ChannelsService } from './channels.service.js';

/**
 * An API key (channels scopes) or the session of a dashboard admin: connecting and choosing a brand's
 * accounts is setting up the workspace, policy workspace.brands.initialize (docs/sessions.md).
 */
const SETUP_POLICY = 'workspace.brands.initialize';
const tags = ['Channels'];

const ChannelConnectUrlRequest = Type.Object(
  {
    organizationId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    platform: PlatformRef,
    brandId: Type.Optional(NullOr(Type.String({ minLength: 1, maxLength: 128 }))),
    returnUrl: Type.Optional(
      NullOr(
        Type.String({
          minLength: 1,
          maxLength: 2048,
          description:
            "Where the callback redirects the user after the platform login. Its origin must be this service's, a dashboard origin (SERVICE_DASHBOARD_ORIGINS) or one listed in SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS; others are 400.",
        }),
      ),
    ),
    redirectUri: Type.Optional(NullOr(Type.String({ minLength: 1, maxLength: 2048 }))),
    scopes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: 50,
      }),
    ),
  },
  { $id: 'ChannelConnectUrlRequest', additionalProperties: false },
);

const ChannelConnectUrlResponse = Type.Object(
  {
    platform: PlatformRef,
    authorizationUrl: Type.String({ format: 'uri' }),
    redirectUri: Type.String({ format: 'uri' }),
    state: Type.String(),
    scopes: Type.Array(Type.String()),
  },
  { $id: 'ChannelConnectUrlResponse', additionalProperties: false },
);

const CallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    error: Type.Optional(Type.String({ maxLength: 512 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

const CallbackResult = Type.Object(
  {
    result: Type.Union([Type.Literal('connected'), Type.Literal('in_between_steps'), Type.Literal('error')]),
    platform: PlatformRef,
    channelAccountId: Type.Optional(Type.String()),
    choices: Type.Optional(Type.Array(ChannelChoice)),
    error: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
  },
  { $id: 'ChannelOAuthCallbackResult', additionalProperties: false },
);

/** The result as query parameters of the return URL (channelConnect, platform, channelAccountId | error). */
function redirectTarget(outcome: CallbackOutcome & { returnUrl: string }): string {
  const url = new URL(outcome.returnUrl);
  url.searchParams.set('channelConnect', outcome.result);
  url.searchParams.set('platform', outcome.platform);
  if (outcome.result === 'error') url.searchParams.set('error', outcome.error);
  else url.searchParams.set('channelAccountId', outcome.channelAccountId);
  return url.toString();
}

export function registerChannelConnectRoutes(
  root: FastifyInstance,
  services: {
    connect: ChannelConnectService;
    callback: ChannelCallbackService;
    choice: ChannelChoiceService;
    channels: ChannelsService;
  },
): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/channel-accounts/connect-url',
    {
      config: {
        ...publicOrDashboard('channels:write', SETUP_POLICY),
        validationCode: 'invalid_public_channel_connect_url_request',
      },
      schema: {
        operationId: 'createChannelConnectUrl',
        tags,
        summary: 'Create a channel OAuth connect URL',
        description:
          "Answers the platform's authorization URL with a single-use state (valid SERVICE_CHANNEL_CONNECT_STATE_TTL_SECONDS, bound to the organization, brand and returnUrl) and PKCE S256 where the platform supports it. " +
          'After the user approves, the platform redirects to the callback, which connects the channel and redirects to returnUrl with channelConnect=connected|in_between_steps|error, platform and channelAccountId or error.',
        body: ChannelConnectUrlRequest,
        response: {
          200: ChannelConnectUrlResponse,
          ...errorResponses(
            'invalid_public_channel_connect_url_request',
            'channel_oauth_config_missing',
            'channel_oauth_config_invalid',
            'channel_oauth_redirect_uri_forbidden',
            'organization_not_found',
            'brand_not_found',
          ),
        },
      },
    },
    async (request) => services.connect.connectUrl(organizationOf(request), request.body),
  );

  app.get(
    '/v1/channel-accounts/oauth/callback/:platform',
    {
      // the URL carries the authorization code and state: keep it out of the request logs
      logLevel: 'warn',
      config: { validationCode: 'channel_oauth_state_invalid' },
      schema: {
        operationId: 'channelOAuthCallback',
        tags,
        summary: 'Platform OAuth redirect target',
        security: [],
        description:
          'No credential: the single-use state authenticates the request. With a returnUrl: 302 there with the result as query parameters. Without: 200 with the result as JSON. An unknown, expired, used or foreign state is 400 channel_oauth_state_invalid.',
        params: Type.Object({ platform: PlatformRef }, { additionalProperties: false }),
        querystring: CallbackQuery,
        response: {
          200: CallbackResult,
          302: Type.Null({
            description: "Redirect to the connect request's returnUrl.",
          }),
          ...errorResponses('channel_oauth_state_invalid', 'internal_server_error'),
        },
      },
    },
    async (request, reply) => {
      const outcome = await services.callback.complete(request.params.platform, request.query);
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      if (outcome.returnUrl) return reply.redirect(redirectTarget({ ...outcome, returnUrl: outcome.returnUrl }), 302);
      const { returnUrl: _r, ...body } = outcome;
      return reply.code(200).send(body);
    },
  );

  app.get(
    '/v1/channel-accounts/:channelAccountId/choices',
    {
      config: {
        ...publicOrDashboard('channels:read', SETUP_POLICY),
        validationCode: 'invalid_public_channel_account_query',
      },
      schema: {
        operationId: 'listChannelAccountChoices',
        tags,
        summary: 'Accounts an in_between_steps channel can become',
        params: ChannelAccountParams,
        response: {
          200: Type.Object({ data: Type.Array(ChannelChoice) }, { $id: 'ChannelChoiceList', additionalProperties: false }),
          ...errorResponses('channel_account_not_found'),
        },
      },
    },
    async (request) => ({
      data: await services.callback.choices(organizationOf(request), request.params.channelAccountId),
    }),
  );

  app.post(
    '/v1/channel-accounts/:channelAccountId/select',
    {
      config: {
        ...publicOrDashboard('channels:write', SETUP_POLICY),
        validationCode: 'invalid_public_channel_account_request',
      },
      schema: {
        operationId: 'selectChannelAccountChoice',
        tags,
        summary: 'Complete an in_between_steps channel with the chosen account',
        description:
          'The channel becomes connected as the chosen account (an existing channel of that account is reconnected instead and the placeholder removed).',
        params: ChannelAccountParams,
        body: Type.Object(
          {
            organizationId: Type.String({ minLength: 1 }),
            externalAccountId: Type.String({ minLength: 1, maxLength: 256 }),
          },
          { $id: 'ChannelChoiceSelectRequest', additionalProperties: false },
        ),
        response: {
          200: ChannelAccount,
          ...errorResponses(
            'invalid_public_channel_account_request',
            'organization_not_found',
            'channel_account_not_found',
            'channel_account_invalid_transition',
          ),
        },
      },
    },
    async (request) => {
      const organizationId = organizationOf(request);
      assertOwnOrganization(organizationId, request.body.organizationId);
      const id = await services.choice.select(organizationId, request.params.channelAccountId, request.body.externalAccountId);
      return services.channels.get(organizationId, id);
    },
  );
}
