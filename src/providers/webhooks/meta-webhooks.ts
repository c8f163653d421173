/**
 * Meta webhooks (Graph API Webhooks, Instagram and Threads webhooks): the X-Hub-Signature-256 check,
 * the deauthorize callback's signed_request, the parsing of `page`/`instagram` change notifications and
 * Threads `replies` notifications, and the app subscription call `POST /{app-id}/subscriptions`.
 */
import { type Platform, ProviderError } from '../provider.js';
import { providerRequest } from '../shared/provider-http.js';
import { hmac, type InboundEvent, safeEqual, verifyPrefixedSignature } from './signatures.js';

export function verifyMetaSignature(header: string | undefined, raw: Buffer, appSecret: string | null): boolean {
  return verifyPrefixedSignature(header, raw, appSecret, ['sha256'], 'hex');
}

/** `signed_request` of a deauthorize callback: base64url(HMAC-SHA256(app secret, payload)).base64url(payload). */
export function verifySignedRequest(signedRequest: string, appSecret: string | null): { userId: string } | null {
  if (!appSecret) return null;
  const [sig, payload] = signedRequest.split('.', 2);
  if (!sig || !payload) return null;
  if (
    !safeEqual(
      sig.replace(/=+$/, ''),
      hmac('sha256', appSecret, payload, 'base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    )
  )
    return null;
  try {
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { algorithm?: string; user_id?: unknown };
    if (String(data.algorithm).toUpperCase() !== 'HMAC-SHA256' || data.user_id == null) return null;
    return { userId: String(data.user_id) };
  } catch {
    return null;
  }
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);

/** The events of one Meta delivery body (already signature-checked). Unknown fields are ignored. */
export function parseMetaDelivery(body: unknown): InboundEvent[] {
  const b = obj(body);
  const out: InboundEvent[] = [];
  // Threads: {app_id, topic, target_id, values: {field: 'replies', value: {id, replied_to, root_post}}}
  const threads = obj(b.values);
  if (threads.field === 'replies') {
    const v = obj(threads.value);
    const root = obj(v.root_post);
    const post = str(root.id) ?? str(obj(v.replied_to).id);
    if (post)
      out.push({ kind: 'comment', accountId: str(root.owner_id) ?? str(b.target_id), providerPostId: post, providerCommentId: str(v.id) });
    return out;
  }
  for (const entry of Array.isArray(b.entry) ? b.entry : []) {
    const e = obj(entry);
    const accountId = str(e.id);
    for (const change of Array.isArray(e.changes) ? e.changes : []) {
      const c = obj(change);
      const v = obj(c.value);
      if (b.object === 'page' && c.field === 'feed' && v.item === 'comment') {
        const post = str(v.post_id);
        if (post) out.push({ kind: 'comment', accountId, providerPostId: post, providerCommentId: str(v.comment_id) });
      } else if (b.object === 'instagram' && (c.field === 'comments' || c.field === 'live_comments')) {
        const media = str(obj(v.media).id);
        if (media) out.push({ kind: 'comment', accountId, providerPostId: media, providerCommentId: str(v.id) });
      } else if (b.object === 'permissions' && v.verb === 'revoked' && accountId) {
        out.push({ kind: 'deauthorized', accountId });
      }
    }
  }
  return out;
}

/** The `object` and `fields` each Meta platform's app subscription asks for. */
export const META_SUBSCRIPTION: Partial<Record<Platform, { object: string; fields: string[] }>> = {
  facebook_page: { object: 'page', fields: ['feed'] },
  instagram_business: { object: 'instagram', fields: ['comments'] },
  instagram_standalone: { object: 'instagram', fields: ['comments'] },
  threads: { object: 'threads', fields: ['replies'] },
};

export interface MetaAppSubscription {
  graphBaseUrl: string;
  appId: string;
  appSecret: string;
  object: string;
  fields: string[];
  callbackUrl: string;
  verifyToken: string;
  timeoutMs: number;
}

export function metaSubscriptionUrl(s: Pick<MetaAppSubscription, 'graphBaseUrl' | 'appId'>): string {
  return `${s.graphBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(s.appId)}/subscriptions`;
}

/** Creates or updates the app's subscription; Graph calls the callback's GET handshake before answering. */
export async function subscribeMetaApp(platform: Platform, s: MetaAppSubscription): Promise<void> {
  const res = await providerRequest(platform, {
    method: 'POST',
    url: metaSubscriptionUrl(s),
    form: new URLSearchParams({
      object: s.object,
      callback_url: s.callbackUrl,
      fields: s.fields.join(','),
      include_values: 'true',
      verify_token: s.verifyToken,
      // the app access token
      access_token: `${s.appId}|${s.appSecret}`,
    }),
    timeoutMs: s.timeoutMs,
    idempotent: true,
  });
  const body = obj(res.body);
  if (res.status >= 300 || body.success !== true) {
    const err = obj(body.error);
    throw new ProviderError({
      platform,
      category: res.status === 401 || err.code === 190 ? 'auth_expired' : 'platform_rejected',
      message: `app subscription refused: ${String(err.message ?? res.status)}`,
      providerCode: str(err.code),
    });
  }
}
