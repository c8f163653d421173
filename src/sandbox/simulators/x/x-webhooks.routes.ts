/**
 * Account Activity API v2 of the X simulator:
 *
 *   GET    /2/webhooks            app-only bearer; {data: [{id, url, valid, created_at}], meta: {result_count}}
 *   POST   /2/webhooks {url}      app-only bearer; X runs the CRC check (GET url?crc_token=...) first
 *   PUT    /2/webhooks/:id        re-runs the CRC check; {data: {attempted: true}}
 *   DELETE /2/webhooks/:id        {data: {deleted: true}}
 *   POST   /2/account_activity/webhooks/:id/subscriptions/all        user token; {data: {subscribed: true}}
 *   GET    /2/account_activity/webhooks/:id/subscriptions/all/list   app-only bearer
 *
 * The CRC answer must be {response_token: "sha256=" + base64(HMAC-SHA256(consumer secret, crc_token))}.
 * `deliverActivity` POSTs an event to every webhook the account is subscribed to, signed as X does.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callbackFetch } from '../callback-fetch.js';
import { authorize, invalidRequest, problem, simulate, type XSimContext } from './x-http.js';
import type { XSimulatorState } from './x-state.js';

const crcToken = (secret: string, token: string) => `sha256=${createHmac('sha256', secret).update(token).digest('base64')}`;

async function crcCheck(state: XSimulatorState, url: string): Promise<boolean> {
  const token = randomBytes(24).toString('base64url');
  const target = new URL(url);
  target.searchParams.set('crc_token', token);
  try {
    const res = await callbackFetch(target, { signal: AbortSignal.timeout(3000) });
    if (!res.ok) return false;
    const body = (await res.json()) as { response_token?: unknown };
    return body.response_token === crcToken(state.consumerSecret, token);
  } catch {
    return false;
  }
}

export async function deliverActivity(state: XSimulatorState, forUserId: string, event: Record<string, unknown>): Promise<number[]> {
  const body = JSON.stringify({ for_user_id: forUserId, ...event });
  const signature = `sha256=${createHmac('sha256', state.consumerSecret).update(body).digest('base64')}`;
  const statuses: number[] = [];
  for (const hook of state.webhooks.values()) {
    if (!hook.valid || !hook.subscribers.has(forUserId)) continue;
    const res = await callbackFetch(hook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-twitter-webhooks-signature': signature },
      body,
    });
    statuses.push(res.status);
  }
  return statuses;
}

export function registerXWebhookRoutes(app: FastifyInstance, ctx: XSimContext): void {
  const { state } = ctx;
  const appOnly = (req: FastifyRequest) => {
    if (req.headers.authorization !== `Bearer ${state.appBearerToken}`) throw problem(401, 'Unauthorized');
  };
  const hookOf = (req: FastifyRequest) => {
    const hook = state.webhooks.get((req.params as { id: string }).id);
    if (!hook) throw problem(404, 'Webhook not found', 'https://api.x.com/2/problems/resource-not-found');
    return hook;
  };
  const render = (h: { id: string; url: string; valid: boolean; createdAt: string }) => ({
    id: h.id,
    url: h.url,
    valid: h.valid,
    created_at: h.createdAt,
  });

  app.get(
    '/2/webhooks',
    simulate(ctx, 'webhooks_list', (req) => {
      appOnly(req);
      const data = [...state.webhooks.values()].map(render);
      return { status: 200, body: { data, meta: { result_count: data.length } } };
    }),
  );

  app.post(
    '/2/webhooks',
    simulate(ctx, 'webhooks_create', async (req) => {
      appOnly(req);
      const url = String((req.body as { url?: unknown } | null)?.url ?? '');
      if (!/^https?:\/\//.test(url)) throw invalidRequest('The `url` field must be a valid URL', 'url');
      if ([...state.webhooks.values()].some((h) => h.url === url))
        throw invalidRequest('DuplicateUrlFailed: a webhook with this url exists', 'url');
      if (!(await crcCheck(state, url))) throw invalidRequest('CrcValidationFailed: the webhook url did not answer the CRC check', 'url');
      const hook = {
        id: String(Date.now()) + String(state.webhooks.size),
        url,
        valid: true,
        createdAt: new Date().toISOString(),
        subscribers: new Set<string>(),
      };
      state.webhooks.set(hook.id, hook);
      return { status: 200, body: { data: render(hook) } };
    }),
  );

  app.put(
    '/2/webhooks/:id',
    simulate(ctx, 'webhooks_validate', async (req) => {
      appOnly(req);
      const hook = hookOf(req);
      hook.valid = await crcCheck(state, hook.url);
      return { status: 200, body: { data: { attempted: true } } };
    }),
  );

  app.delete(
    '/2/webhooks/:id',
    simulate(ctx, 'webhooks_delete', (req) => {
      appOnly(req);
      state.webhooks.delete(hookOf(req).id);
      return { status: 200, body: { data: { deleted: true } } };
    }),
  );

  app.post(
    '/2/account_activity/webhooks/:id/subscriptions/all',
    simulate(ctx, 'activity_subscribe', (req) => {
      const token = authorize(ctx, req, ['tweet.read', 'users.read'], 'activity_subscribe', 500);
      const hook = hookOf(req);
      if (!hook.valid) throw invalidRequest('The webhook is not valid; re-run the CRC check (PUT /2/webhooks/:id)');
      hook.subscribers.add(token.userId);
      return { status: 200, body: { data: { subscribed: true } } };
    }),
  );

  app.get(
    '/2/account_activity/webhooks/:id/subscriptions/all/list',
    simulate(ctx, 'activity_list', (req) => {
      appOnly(req);
      const hook = hookOf(req);
      return {
        status: 200,
        body: {
          data: {
            application_id: state.clientId,
            webhook_id: hook.id,
            webhook_url: hook.url,
            subscriptions: [...hook.subscribers].map((user_id) => ({ user_id })),
          },
        },
      };
    }),
  );
}
