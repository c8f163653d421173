/**
 * The PubSubHubbub hub YouTube publishes through (pubsubhubbub.appspot.com), simulated:
 *
 *   POST /websub/subscribe  form hub.mode (subscribe|unsubscribe), hub.topic, hub.callback, hub.secret,
 *                           hub.lease_seconds, hub.verify (async default): 202 Accepted, then the hub
 *                           verifies the intent with GET hub.callback?hub.mode&hub.topic&hub.challenge&
 *                           hub.lease_seconds; the subscription is active only when the challenge is echoed.
 *
 * Only YouTube channel feed topics are accepted. `publishToHub` delivers an Atom document to every
 * active subscriber of a topic, signed with X-Hub-Signature: sha1=HMAC(hub.secret, body) as the hub does.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SimulatorLedger } from '../../simulator-kit.js';
import { callbackFetch } from '../callback-fetch.js';
import type { GoogleSimulatorState } from './google-state.js';

export interface HubSubscription {
  topic: string;
  callback: string;
  secret: string | null;
  leaseSeconds: number;
  state: 'pending' | 'verified' | 'failed';
}

const hubs = new WeakMap<GoogleSimulatorState, Map<string, HubSubscription>>();
export function hubSubscriptions(state: GoogleSimulatorState): Map<string, HubSubscription> {
  let m = hubs.get(state);
  if (!m) {
    m = new Map();
    hubs.set(state, m);
  }
  return m;
}

const TOPIC = /^https:\/\/www\.youtube\.com\/xml\/feeds\/videos\.xml\?channel_id=[A-Za-z0-9_-]+$/;
const DEFAULT_LEASE = 432_000;
const MAX_LEASE = 864_000;

async function verifyIntent(sub: HubSubscription, mode: string): Promise<boolean> {
  const challenge = randomBytes(16).toString('hex');
  const url = new URL(sub.callback);
  url.searchParams.set('hub.mode', mode);
  url.searchParams.set('hub.topic', sub.topic);
  url.searchParams.set('hub.challenge', challenge);
  url.searchParams.set('hub.lease_seconds', String(sub.leaseSeconds));
  try {
    const res = await callbackFetch(url, { signal: AbortSignal.timeout(5000) });
    return res.status >= 200 && res.status < 300 && (await res.text()) === challenge;
  } catch {
    return false;
  }
}

export async function publishToHub(state: GoogleSimulatorState, topic: string, atom: string): Promise<number[]> {
  const statuses: number[] = [];
  for (const sub of hubSubscriptions(state).values()) {
    if (sub.topic !== topic || sub.state !== 'verified') continue;
    const headers: Record<string, string> = { 'content-type': 'application/atom+xml', link: `<${topic}>; rel=self` };
    if (sub.secret) headers['x-hub-signature'] = `sha1=${createHmac('sha1', sub.secret).update(atom).digest('hex')}`;
    const res = await callbackFetch(sub.callback, { method: 'POST', headers, body: atom });
    statuses.push(res.status);
  }
  return statuses;
}

export function registerWebSubHubRoutes(app: FastifyInstance, state: GoogleSimulatorState, ctx: { ledger: SimulatorLedger }): void {
  app.post('/websub/subscribe', async (req, reply) => {
    ctx.ledger.record('websub_subscribe', req.method, req.url);
    const p = (req.body && typeof req.body === 'object' && !Buffer.isBuffer(req.body) ? req.body : {}) as Record<string, string>;
    const mode = p['hub.mode'];
    const topic = p['hub.topic'] ?? '';
    const callback = p['hub.callback'] ?? '';
    if (mode !== 'subscribe' && mode !== 'unsubscribe') return reply.code(400).type('text/plain').send('Invalid value for hub.mode');
    if (!TOPIC.test(topic)) return reply.code(400).type('text/plain').send('Invalid value for hub.topic');
    if (!/^https?:\/\//.test(callback)) return reply.code(400).type('text/plain').send('Invalid value for hub.callback');
    const secret = p['hub.secret'] ?? null;
    if (secret !== null && secret.length >= 200) return reply.code(400).type('text/plain').send('Invalid value for hub.secret');
    const asked = Number(p['hub.lease_seconds'] ?? DEFAULT_LEASE);
    const sub: HubSubscription = {
      topic,
      callback,
      secret,
      leaseSeconds: Math.min(Number.isFinite(asked) && asked > 0 ? asked : DEFAULT_LEASE, MAX_LEASE),
      state: 'pending',
    };
    const key = `${topic} ${callback}`;
    // asynchronous verification, after the 202 answer
    setImmediate(() => {
      void verifyIntent(sub, mode).then((ok) => {
        if (mode === 'unsubscribe') {
          if (ok) hubSubscriptions(state).delete(key);
          return;
        }
        const existing = hubSubscriptions(state).get(key);
        if (ok) hubSubscriptions(state).set(key, { ...sub, state: 'verified' });
        else if (existing?.state !== 'verified') hubSubscriptions(state).set(key, { ...sub, state: 'failed' });
      });
    });
    return reply.code(202).type('text/plain').send('');
  });
}
