import { type Static, Type } from '@sinclair/typebox';
import { ListOf, Nullable, PaginationQuery, Timestamp } from '../../http/shared-schemas.js';
import { EVENT_TYPES } from '../../platform/events/event-types.js';

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
export const ENDPOINT_ID_PREFIX = 'we';
export const DELIVERY_ID_PREFIX = 'wdl';
/** Every status a delivery can have (the delivery log merges one range of each: webhooksRepository.listDeliveries). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
const DeliveryStatus = () => Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)));

const EventTypeSchema = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type of the catalog.' },
);

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) URL that receives signed POSTs; must be safe for outbound delivery.',
});
const Description = Type.String({ maxLength: 500 });
const EventTypes = Type.Array(EventTypeSchema, {
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Event types this endpoint receives; empty = all.',
});
const BatchJobEvents = Type.Boolean({
  description:
    'Also send one publish_job.created per job that a batch commit creates (default false: a batch commit announces its jobs only in publish_batch.committed). Takes effect when the endpoint receives publish_job.created (listed in eventTypes, or eventTypes empty).',
});
const Metadata = Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), {
  maxProperties: 50,
  description: 'Free key/value strings for the integrator.',
});

export const WebhookEndpoint = Type.Object(
  {
    webhookEndpointId: Type.String(),
    organizationId: Type.String(),
    url: Type.String(),
    description: Nullable(Type.String()),
    eventTypes: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    batchJobEvents: BatchJobEvents,
    disabledReason: Nullable(Type.String({ description: 'why delivery stopped (gone, failing) when enabled is false by the service' })),
    metadata: Type.Record(Type.String(), Type.String()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'WebhookEndpoint', additionalProperties: false },
);

export const WebhookEndpointCreated = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: 'whsec_<base64> signing secret; shown only here and on rotation.' }),
  },
  { $id: 'WebhookEndpointCreated', additionalProperties: false },
);

export const WebhookEndpointCreateRequest = Type.Object(
  {
    url: Url,
    description: Type.Optional(Nullable(Description)),
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    batchJobEvents: Type.Optional(BatchJobEvents),
    metadata: Type.Optional(Metadata),
  },
  { $id: 'WebhookEndpointCreateRequest', additionalProperties: false },
);

export const WebhookEndpointUpdateRequest = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Nullable(Description)),
    eventTypes: Type.Optional(EventTypes),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint the service disabled; deliveries resume' })),
    batchJobEvents: Type.Optional(BatchJobEvents),
    metadata: Type.Optional(Metadata),
  },
  { $id: 'WebhookEndpointUpdateRequest', additionalProperties: false, minProperties: 1 },
);

export const WebhookEndpointSecret = Type.Object(
  { secret: Type.String({ description: 'the new whsec_ secret; the previous one keeps signing for 24 h' }) },
  { $id: 'WebhookEndpointSecret', additionalProperties: false },
);

export const WebhookAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    statusCode: Nullable(Type.Integer()),
    durationMs: Type.Integer({ minimum: 0 }),
    responseExcerpt: Nullable(Type.String({ description: 'first 4 KiB of the response body' })),
    errorClass: Nullable(
      Type.String({
        description: 'http_status, timeout, connect_failed, url_refused, dns_failed, redirect or aborted; null when delivered',
      }),
    ),
    nextRetryAt: Nullable(Timestamp()),
    createdAt: Timestamp(),
  },
  { $id: 'WebhookAttempt', additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    deliveryId: Type.String(),
    webhookEndpointId: Type.String(),
    eventId: Type.String({ description: 'also the webhook-id header of every attempt' }),
    eventType: Type.String(),
    status: DeliveryStatus(),
    attemptCount: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Nullable(Timestamp()),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    deliveredAt: Nullable(Timestamp()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    attempts: Type.Array(Type.Unsafe<Static<typeof WebhookAttempt>>(Type.Ref('WebhookAttempt'))),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const WebhookRecoverRequest = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description: 'resend failed deliveries created at or after this time (at most 14 days back)',
    }),
  },
  { $id: 'WebhookRecoverRequest', additionalProperties: false },
);
export const WebhookRecoverAnswer = Type.Object(
  { recovered: Type.Integer({ minimum: 0, description: 'deliveries queued again' }) },
  { $id: 'WebhookRecoverAnswer', additionalProperties: false },
);

export const EndpointListQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false });
export const DeliveryListQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatus()),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export const EndpointParams = Type.Object(
  { webhookEndpointId: Type.String({ pattern: `^${ENDPOINT_ID_PREFIX}_${ULID}$`, description: `${ENDPOINT_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);
export const DeliveryParams = Type.Object(
  { deliveryId: Type.String({ pattern: `^${DELIVERY_ID_PREFIX}_${ULID}$`, description: `${DELIVERY_ID_PREFIX}_<ULID>` }) },
  { additionalProperties: false },
);

export const WebhookEndpointList = ListOf(Type.Ref('WebhookEndpoint'), undefined, 'WebhookEndpointList');
export const WebhookDeliveryList = ListOf(Type.Ref('WebhookDelivery'), undefined, 'WebhookDeliveryList');

export const WEBHOOK_SCHEMAS = [WebhookEndpoint, WebhookAttempt, WebhookDelivery];

export type WebhookEndpointT = Static<typeof WebhookEndpoint>;
export type WebhookDeliveryT = Static<typeof WebhookDelivery>;
export type CreateT = Static<typeof WebhookEndpointCreateRequest>;
export type UpdateT = Static<typeof WebhookEndpointUpdateRequest>;
