/**
 * Verifies a webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the reference `standardwebhooks` library, and answers the typed event.
 * Pass the raw request body exactly as received; re-serialised JSON does not verify.
 */
import { Webhook } from 'standardwebhooks';

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  createdAt: string;
  organizationId: string;
  data: T;
  sequence?: number;
}

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/**
 * Throws WebhookVerificationError when no secret signs the payload or the timestamp is outside the
 * library's tolerance (5 minutes). Several secrets cover a rotation window.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  /** the raw body: a string, or bytes (a Node Buffer is a Uint8Array) */
  payload: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string | string[],
): WebhookEvent<T> {
  const flat: Record<string, string> = {};
  if (headers instanceof Headers)
    headers.forEach((v, k) => {
      flat[k] = v;
    });
  else for (const [k, v] of Object.entries(headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(',') : v;
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  let lastError: unknown;
  for (const s of Array.isArray(secret) ? secret : [secret]) {
    try {
      return new Webhook(s).verify(body, flat) as WebhookEvent<T>;
    } catch (err) {
      lastError = err;
    }
  }
  throw new WebhookVerificationError(lastError instanceof Error ? lastError.message : 'webhook signature did not verify');
}
