/**
 * X Account Activity API: the CRC answer, the x-twitter-webhooks-signature check, the parsing of
 * `tweet_create_events` and `user_event.revoke`, and the v2 webhook registration
 * (`GET/POST /2/webhooks`, `PUT /2/webhooks/:id` re-runs the CRC) and per-user subscription
 * (`POST /2/account_activity/webhooks/:id/subscriptions/all`).
 */
import { ProviderError } from '../provider.js';
import { providerRequest } from '../shared/provider-http.js';
import { hmac, type InboundEvent, verifyPrefixedSignature } from './signatures.js';

/** `{response_token: "sha256=" + base64(HMAC-SHA256(consumer secret, crc_token))}` */
export function xCrcResponse(crcToken: string, consumerSecret: string): { response_token: string } {
  return { response_token: `sha256=${hmac('sha256', consumerSecret, crcToken, 'base64')}` };
}

export function verifyXSignature(header: string | undefined, raw: Buffer, consumerSecret: string | null): boolean {
  return verifyPrefixedSignature(header, raw, consumerSecret, ['sha256'], 'base64');
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export function parseXDelivery(body: unknown): InboundEvent[] {
  const b = obj(body);
  const forUser = str(b.for_user_id);
  const out: InboundEvent[] = [];
  for (const t of Array.isArray(b.tweet_create_events) ? b.tweet_create_events : []) {
    const tweet = obj(t);
    const parent = str(tweet.in_reply_to_status_id_str);
    // a reply by someone else to a post of the subscribed account
    if (parent && str(obj(tweet.user).id_str) !== forUser)
      out.push({ kind: 'comment', accountId: forUser, providerPostId: parent, providerCommentId: str(tweet.id_str) });
  }
  const revoke = obj(obj(b.user_event).revoke);
  const revoker = str(obj(revoke.source).user_id);
  if (revoker) out.push({ kind: 'deauthorized', accountId: revoker });
  return out;
}

interface XCall {
  apiBaseUrl: string;
  timeoutMs: number;
}

const base = (c: XCall) => c.apiBaseUrl.replace(/\/+$/, '');

function refused(status: number, body: unknown, what: string): ProviderError {
  const b = obj(body);
  const detail = str(b.detail) ?? str(obj((b.errors as unknown[] | undefined)?.[0]).message) ?? String(status);
  return new ProviderError({
    platform: 'x',
    category: status === 401 ? 'auth_expired' : status === 429 ? 'rate_limited' : 'platform_rejected',
    message: `${what} refused: ${detail}`,
    httpStatus: status,
  });
}

export interface XWebhook {
  id: string;
  url: string;
  valid: boolean;
}

/** Finds the app's webhook for `url` (re-validating it when X marked it invalid) or registers it. */
export async function ensureXWebhook(c: XCall & { appBearerToken: string; url: string }): Promise<XWebhook> {
  const auth = { authorization: `Bearer ${c.appBearerToken}` };
  const list = await providerRequest('x', {
    method: 'GET',
    url: `${base(c)}/webhooks`,
    headers: auth,
    timeoutMs: c.timeoutMs,
    idempotent: true,
  });
  if (list.status !== 200) throw refused(list.status, list.body, 'webhook list');
  const existing = ((obj(list.body).data as Json[] | undefined) ?? []).map(obj).find((w) => w.url === c.url);
  if (existing && existing.valid === true) return { id: String(existing.id), url: c.url, valid: true };
  if (existing) {
    // PUT re-runs the CRC check of an invalid webhook
    const put = await providerRequest('x', {
      method: 'PUT',
      url: `${base(c)}/webhooks/${encodeURIComponent(String(existing.id))}`,
      headers: auth,
      timeoutMs: c.timeoutMs,
      idempotent: true,
    });
    if (put.status !== 200) throw refused(put.status, put.body, 'webhook validation');
    return { id: String(existing.id), url: c.url, valid: obj(obj(put.body).data).attempted === true };
  }
  const created = await providerRequest('x', {
    method: 'POST',
    url: `${base(c)}/webhooks`,
    headers: auth,
    json: { url: c.url },
    timeoutMs: c.timeoutMs,
    idempotent: true,
  });
  if (created.status !== 200) throw refused(created.status, created.body, 'webhook registration');
  const d = obj(obj(created.body).data);
  return { id: String(d.id), url: c.url, valid: d.valid === true };
}

/** Subscribes the account whose user token is given to the webhook's events. */
export async function subscribeXUser(c: XCall & { webhookId: string; userAccessToken: string }): Promise<void> {
  const res = await providerRequest('x', {
    method: 'POST',
    url: `${base(c)}/account_activity/webhooks/${encodeURIComponent(c.webhookId)}/subscriptions/all`,
    headers: { authorization: `Bearer ${c.userAccessToken}` },
    json: {},
    timeoutMs: c.timeoutMs,
    idempotent: true,
  });
  if (res.status !== 200) throw refused(res.status, res.body, 'account subscription');
}
