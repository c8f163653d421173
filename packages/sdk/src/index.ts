export { createServiceApi, type ListItem, type ListPath, type ServiceApi, type ServiceApiOptions } from './client.js';
export { type ErrorField, ServiceApiError, ServiceApiUnreachableError, unwrap } from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export { verifyWebhook, type WebhookEvent, WebhookVerificationError } from './webhooks.js';

import type { components } from './generated/openapi.js';
/** A named schema of the API, e.g. `Schema<'Brand'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];
