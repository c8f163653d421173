/** Webhook endpoint and delivery routes (ROUTES.md, Webhooks and automations). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import type { JobDefinition } from '../../platform/queue/job-queue.js';
import type { AppDeps } from '../app-deps.js';
import type { DeliverJobData } from './webhooks.fanout.js';
import {
  DeliveryListQuery,
  DeliveryParams,
  EndpointListQuery,
  EndpointParams,
  WEBHOOK_SCHEMAS,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointCreateRequest,
  WebhookEndpointList,
  WebhookEndpointSecret,
  WebhookEndpointUpdateRequest,
  WebhookRecoverAnswer,
  WebhookRecoverRequest,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

// an API key / OAuth token with the scope, or a dashboard session of an admin (policies
// webhooks.endpoints.manage and webhooks.deliveries.manage; docs/webhooks.md)
const endpoints = (scope: 'webhooks:read' | 'webhooks:write') => publicOrDashboard(scope, 'webhooks.endpoints.manage');
const deliveries = (scope: 'webhooks:read' | 'webhooks:write') => publicOrDashboard(scope, 'webhooks.deliveries.manage');
const tags = ['Webhooks'];

/** The service the routes call and the delivery job whose queue they ensure (the area's module is one). */
export interface WebhooksRouteServices {
  service: WebhooksService;
  deliverJob: JobDefinition<DeliverJobData>;
}

export async function registerWebhookRoutes(root: FastifyInstance, deps: Pick<AppDeps, 'jobs'>, m: WebhooksRouteServices): Promise<void> {
  // the outbox listener sends jobs inside other areas' transactions: the queue must exist first
  await deps.jobs.ensureQueue(m.deliverJob);
  for (const s of WEBHOOK_SCHEMAS) root.addSchema(s);
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const svc = m.service;
  const org = organizationOf;

  app.get(
    '/v1/webhook-endpoints',
    {
      config: { ...endpoints('webhooks:read'), validationCode: 'invalid_public_webhook_endpoint_query' },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: "List the organization's webhook endpoints (secrets are never listed)",
        querystring: EndpointListQuery,
        response: { 200: WebhookEndpointList, ...errorResponses('invalid_public_webhook_endpoint_query') },
      },
    },
    async (request) => svc.list(org(request), request.query),
  );

  app.post(
    '/v1/webhook-endpoints',
    {
      config: { ...endpoints('webhooks:write'), validationCode: 'invalid_public_webhook_endpoint_create_request' },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Create a webhook endpoint; the signing secret is in this answer only',
        body: WebhookEndpointCreateRequest,
        response: {
          201: WebhookEndpointCreated,
          ...errorResponses(
            'invalid_public_webhook_endpoint_create_request',
            'webhook_url_invalid',
            'webhook_write_disabled',
            'webhook_endpoint_create_failed',
          ),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await svc.create(org(request), request.body)),
  );

  app.patch(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: { ...endpoints('webhooks:write'), validationCode: 'invalid_public_webhook_endpoint_update_request' },
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Update a webhook endpoint; enabled: true re-enables one the service disabled',
        params: EndpointParams,
        body: WebhookEndpointUpdateRequest,
        response: {
          200: WebhookEndpoint,
          ...errorResponses(
            'invalid_public_webhook_endpoint_update_request',
            'webhook_url_invalid',
            'webhook_write_disabled',
            'webhook_endpoint_not_found',
          ),
        },
      },
    },
    async (request) => svc.update(org(request), request.params.webhookEndpointId, request.body),
  );

  app.delete(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: { ...endpoints('webhooks:write'), validationCode: 'invalid_public_webhook_endpoint_delete_request' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint and its delivery log',
        params: EndpointParams,
        response: {
          204: { type: 'null', description: 'Deleted.' },
          ...errorResponses('invalid_public_webhook_endpoint_delete_request', 'webhook_write_disabled', 'webhook_endpoint_not_found'),
        },
      },
    },
    async (request, reply) => {
      await svc.remove(org(request), request.params.webhookEndpointId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/webhook-endpoints/:webhookEndpointId/deliveries',
    {
      config: { ...deliveries('webhooks:read'), validationCode: 'invalid_public_webhook_endpoint_query' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'Delivery log of an endpoint, newest first, with every attempt',
        description:
          'The log goes back a limited time: a finished delivery (delivered or failed) and its attempts are removed once older than the retention the operator sets (30 days by default); a pending delivery stays until it finishes.',
        params: EndpointParams,
        querystring: DeliveryListQuery,
        response: {
          200: WebhookDeliveryList,
          ...errorResponses('invalid_public_webhook_endpoint_query', 'webhook_endpoint_not_found'),
        },
      },
    },
    async (request) => svc.deliveries(org(request), request.params.webhookEndpointId, request.query),
  );

  app.post(
    '/v1/webhook-deliveries/:deliveryId/redeliver',
    {
      config: { ...deliveries('webhooks:write'), validationCode: 'invalid_public_webhook_delivery_request' },
      schema: {
        operationId: 'redeliverWebhook',
        tags,
        summary: 'Send the same event again (same webhook-id) to the same endpoint',
        params: DeliveryParams,
        response: {
          202: WebhookDelivery,
          ...errorResponses('webhook_write_disabled', 'webhook_endpoint_not_found'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await svc.redeliver(org(request), request.params.deliveryId)),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/test',
    {
      config: { ...endpoints('webhooks:write'), validationCode: 'invalid_public_webhook_endpoint_update_request' },
      schema: {
        operationId: 'testWebhookEndpoint',
        tags,
        summary: 'Send a webhook_endpoint.test event to this endpoint',
        params: EndpointParams,
        response: {
          202: WebhookDelivery,
          ...errorResponses('webhook_write_disabled', 'webhook_endpoint_not_found'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await svc.sendTest(org(request), request.params.webhookEndpointId)),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/rotate-secret',
    {
      config: { ...endpoints('webhooks:write'), validationCode: 'invalid_public_webhook_endpoint_update_request' },
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags,
        summary: 'New signing secret; the previous one keeps signing (a second v1 signature) for 24 h',
        params: EndpointParams,
        response: {
          200: WebhookEndpointSecret,
          ...errorResponses('webhook_write_disabled', 'webhook_endpoint_not_found'),
        },
      },
    },
    async (request) => svc.rotateSecret(org(request), request.params.webhookEndpointId),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/recover',
    {
      config: { ...deliveries('webhooks:write'), validationCode: 'invalid_public_webhook_endpoint_update_request' },
      schema: {
        operationId: 'recoverWebhookEndpoint',
        tags,
        summary: 'Send again every failed delivery of this endpoint since a time (up to 14 days back)',
        params: EndpointParams,
        body: WebhookRecoverRequest,
        response: {
          202: WebhookRecoverAnswer,
          ...errorResponses('webhook_write_disabled', 'webhook_endpoint_not_found'),
        },
      },
    },
    async (request, reply) => reply.code(202).send(await svc.recover(org(request), request.params.webhookEndpointId, request.body.since)),
  );
}
