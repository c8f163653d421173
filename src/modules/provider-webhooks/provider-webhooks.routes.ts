/**
 * POST /v1/internal/provider-webhooks/provision (policy admin.provider.webhook.provision) and the
 * inbound endpoint GET/POST /v1/provider-webhooks/{platform}: no bearer; each delivery is verified by
 * the platform's own signature over the raw body, which only this route's scope reads as bytes.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requirePolicy } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import type { InboundWebhooks } from './provider-webhooks.inbound.js';
import type { WebhookProvisioning } from './provider-webhooks.provision.js';
import { DeliveryAnswer, HandshakeQuery, PlatformParams, ProvisionAnswer, ProvisionBody } from './provider-webhooks.schemas.js';

/** Largest delivery accepted (platforms batch events; Meta's are well under this). */
const DELIVERY_LIMIT_BYTES = 1024 * 1024;

/** The services the routes call (the area's module is one). */
export interface ProviderWebhooksRouteServices {
  inbound: InboundWebhooks;
  provisioning: WebhookProvisioning;
}

export async function registerProviderWebhookRoutes(root: FastifyInstance, m: ProviderWebhooksRouteServices): Promise<void> {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/internal/provider-webhooks/provision',
    {
      config: { ...requirePolicy('admin.provider.webhook.provision'), validationCode: 'invalid_provider_webhook_provision_request' },
      schema: {
        operationId: 'provisionProviderWebhooks',
        tags: ['System'],
        summary: 'Internal: register or renew the platforms\u2019 webhook subscriptions',
        description:
          'Policy admin.provider.webhook.provision: x-service-internal-token or x-service-principal-token only, never from a browser. ' +
          'Meta app subscriptions, the X Account Activity webhook and account subscriptions, YouTube PubSubHubbub subscriptions per connected channel; ' +
          'TikTok and Pinterest answer `manual` (developer console). dryRun defaults to true.',
        security: [{ internalServiceToken: [] }, { servicePrincipalToken: [] }],
        body: ProvisionBody,
        response: {
          200: ProvisionAnswer,
          ...errorResponses('invalid_request', 'internal_token_required', 'permission_denied', 'internal_server_error'),
        },
      },
    },
    async (request) => m.provisioning.run(request.body),
  );

  app.get(
    '/v1/provider-webhooks/:platform',
    {
      config: { validationCode: 'invalid_provider_webhook_request' },
      schema: {
        operationId: 'verifyProviderWebhook',
        tags: ['System'],
        summary: 'Platform subscription handshake',
        description:
          'Meta and YouTube (WebSub): hub.mode=subscribe with a matching hub.verify_token (Meta) or a topic this service subscribed to (YouTube) answers hub.challenge as text/plain. ' +
          'X: crc_token answers {response_token: "sha256=" + base64(HMAC-SHA256(consumer secret, crc_token))}.',
        security: [],
        params: PlatformParams,
        querystring: HandshakeQuery,
        response: {
          // the challenge is echoed as bare text; only X's CRC answers JSON
          200: {
            description: 'The handshake answer: the hub.challenge as text (Meta, YouTube) or the CRC response token as JSON (X).',
            content: {
              'text/plain': { schema: Type.String({ description: 'hub.challenge, echoed' }) },
              'application/json': {
                schema: Type.Object(
                  { response_token: Type.String({ description: '"sha256=" + base64(HMAC-SHA256(consumer secret, crc_token))' }) },
                  { $id: 'ProviderWebhookCrcResponse', additionalProperties: false },
                ),
              },
            },
          },
          ...errorResponses('provider_webhook_not_found', 'provider_webhook_verification_failed'),
        },
      },
    },
    async (request, reply) => {
      const answer = await m.inbound.handshake(request.params.platform, request.query as Record<string, string | undefined>);
      if (answer.kind === 'json') return answer.body;
      return reply.type('text/plain; charset=utf-8').send(answer.body);
    },
  );

  await app.register(async (scope) => {
    // this route alone reads its body as bytes: signatures are computed over the exact raw body
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DELIVERY_LIMIT_BYTES }, (_req, body, done) => done(null, body));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/v1/provider-webhooks/:platform',
      {
        config: { validationCode: 'invalid_provider_webhook_request' },
        schema: {
          operationId: 'receiveProviderWebhook',
          tags: ['System'],
          summary: 'Inbound platform events',
          description:
            'No bearer: verified by the platform\u2019s signature over the raw body (Meta X-Hub-Signature-256, or a deauthorize signed_request; X x-twitter-webhooks-signature; YouTube X-Hub-Signature). ' +
            'Each delivery is recorded once (by body hash) and processed in the background: comments are synced, deauthorized channels need a reconnect, YouTube feed entries update their post target.',
          security: [],
          params: PlatformParams,
          querystring: Type.Object({}, { additionalProperties: false }),
          response: {
            200: DeliveryAnswer,
            ...errorResponses('invalid_request', 'provider_webhook_signature_invalid', 'provider_webhook_not_found'),
          },
        },
      },
      async (request) =>
        m.inbound.receive(request.params.platform, request.headers, Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)),
    );
  });
}
