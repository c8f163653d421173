/**
 * Graph API app subscriptions (Webhooks), on the graph.facebook.com host:
 *
 *   POST   /{app-id}/subscriptions  object, callback_url, fields, verify_token, include_values; app access token
 *   GET    /{app-id}/subscriptions  {data: [{object, callback_url, active, fields: [{name, version}]}]}
 *   DELETE /{app-id}/subscriptions  object (optional: all objects)
 *
 * Before answering a POST, Graph verifies the callback: GET callback_url?hub.mode=subscribe&
 * hub.challenge=<n>&hub.verify_token=<token> must answer 200 with the challenge, otherwise
 * (#2200) callback verification failed.
 */
import { randomInt } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { callbackFetch } from '../callback-fetch.js';
import { handler, invalidParam, params, type RouteContext, SimError, unsupported } from './meta-http.js';
import type { MetaSimState } from './meta-state.js';

export interface SimAppSubscription {
  object: string;
  callbackUrl: string;
  fields: string[];
  verifyToken: string;
  active: boolean;
}

const subscriptions = new WeakMap<MetaSimState, Map<string, SimAppSubscription>>();
/** The app's subscriptions by object (one callback per object, as on Graph). */
export function appSubscriptions(state: MetaSimState): Map<string, SimAppSubscription> {
  let m = subscriptions.get(state);
  if (!m) {
    m = new Map();
    subscriptions.set(state, m);
  }
  return m;
}

const OBJECTS = new Set(['user', 'page', 'permissions', 'payments', 'instagram', 'threads', 'application', 'whatsapp_business_account']);

export function registerMetaSubscriptionRoutes(
  app: FastifyInstance,
  ctx: RouteContext,
  prefix: string,
  sim: { clientId: string; clientSecret: string },
): void {
  const appToken = (p: Record<string, string>, id: string) => {
    if (id !== sim.clientId) throw unsupported('POST', `${id}/subscriptions`);
    if (p.access_token !== `${sim.clientId}|${sim.clientSecret}`)
      throw new SimError(400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
  };

  app.post(
    `${prefix}/:id/subscriptions`,
    handler(ctx, 'facebook', 'app_subscriptions', async (req) => {
      const p = params(req);
      appToken(p, (req.params as { id: string }).id);
      if (!p.object || !OBJECTS.has(p.object))
        throw invalidParam('param object must be one of {user, page, permissions, payments, instagram, threads, ...}');
      if (!p.callback_url || !/^https?:\/\//.test(p.callback_url)) throw invalidParam('param callback_url must be a valid URL');
      if (!p.verify_token) throw invalidParam('param verify_token is required when callback_url is set');
      const fields = (p.fields ?? '')
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean);
      if (fields.length === 0) throw invalidParam('param fields must be non-empty');
      const challenge = String(randomInt(1, 2_000_000_000));
      const url = new URL(p.callback_url);
      url.searchParams.set('hub.mode', 'subscribe');
      url.searchParams.set('hub.challenge', challenge);
      url.searchParams.set('hub.verify_token', p.verify_token);
      let answer = '';
      try {
        const res = await callbackFetch(url, { signal: AbortSignal.timeout(5000) });
        answer = res.ok ? (await res.text()).trim() : `HTTP ${res.status}`;
      } catch (err) {
        answer = (err as Error).message;
      }
      if (answer !== challenge)
        throw new SimError(400, {
          message: `(#2200) callback verification failed: The URL couldn't be validated. Response does not match challenge, expected value="${challenge}", received="${answer.slice(0, 40)}"`,
          code: 2200,
        });
      appSubscriptions(ctx.state).set(p.object, {
        object: p.object,
        callbackUrl: p.callback_url,
        fields,
        verifyToken: p.verify_token,
        active: true,
      });
      return { body: { success: true } };
    }),
  );

  app.get(
    `${prefix}/:id/subscriptions`,
    handler(ctx, 'facebook', 'app_subscriptions', (req) => {
      appToken(params(req), (req.params as { id: string }).id);
      const data = [...appSubscriptions(ctx.state).values()].map((s) => ({
        object: s.object,
        callback_url: s.callbackUrl,
        active: s.active,
        fields: s.fields.map((name) => ({ name, version: 'v25.0' })),
      }));
      return { body: { data } };
    }),
  );

  app.delete(
    `${prefix}/:id/subscriptions`,
    handler(ctx, 'facebook', 'app_subscriptions', (req) => {
      const p = params(req);
      appToken(p, (req.params as { id: string }).id);
      if (p.object) appSubscriptions(ctx.state).delete(p.object);
      else appSubscriptions(ctx.state).clear();
      return { body: { success: true } };
    }),
  );
}
