/**
 * YouTube push notifications through PubSubHubbub (WebSub): the channel feed topic, the subscribe
 * request to the hub, the X-Hub-Signature check of deliveries and the parsing of the Atom entries
 * (`yt:videoId`, `yt:channelId`, the alternate link, and `at:deleted-entry`).
 */
import { ProviderError } from '../provider.js';
import { providerRequest } from '../shared/provider-http.js';
import { type InboundEvent, verifyPrefixedSignature } from './signatures.js';

const YOUTUBE_FEED_PREFIX = 'https://www.youtube.com/xml/feeds/videos.xml?channel_id=';

export const youtubeTopic = (channelId: string) => `${YOUTUBE_FEED_PREFIX}${encodeURIComponent(channelId)}`;

export function channelIdOfTopic(topic: string): string | null {
  if (!topic.startsWith(YOUTUBE_FEED_PREFIX)) return null;
  return new URL(topic).searchParams.get('channel_id');
}

export function verifyWebSubSignature(header: string | undefined, raw: Buffer, secret: string | null): boolean {
  return verifyPrefixedSignature(header, raw, secret, ['sha1', 'sha256', 'sha384', 'sha512'], 'hex');
}

const decode = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
const tag = (xml: string, name: string) => {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml);
  return m ? decode(m[1]!.trim()) : null;
};

/** The video events of one Atom notification. */
export function parseYoutubeFeed(xml: string): InboundEvent[] {
  const out: InboundEvent[] = [];
  for (const m of xml.matchAll(/<entry[\s>][\s\S]*?<\/entry>/g)) {
    const entry = m[0];
    const videoId = tag(entry, 'yt:videoId');
    const channelId = tag(entry, 'yt:channelId');
    const link = /<link[^>]*rel="alternate"[^>]*href="([^"]+)"/.exec(entry)?.[1] ?? null;
    if (videoId && channelId)
      out.push({ kind: 'video', accountId: channelId, providerPostId: videoId, url: link ? decode(link) : null, deleted: false });
  }
  for (const m of xml.matchAll(/<at:deleted-entry\b([^>]*)>([\s\S]*?)<\/at:deleted-entry>/g)) {
    const ref = /ref="yt:video:([^"]+)"/.exec(m[1]!)?.[1];
    const channel = /youtube\.com\/channel\/([A-Za-z0-9_-]+)/.exec(m[2]!)?.[1];
    if (ref && channel) out.push({ kind: 'video', accountId: channel, providerPostId: ref, url: null, deleted: true });
  }
  return out;
}

export interface WebSubSubscribe {
  hubUrl: string;
  topic: string;
  callbackUrl: string;
  secret: string;
  leaseSeconds: number;
  timeoutMs: number;
}

/** Asks the hub to (re)subscribe; it answers 202 and verifies the intent with a GET to the callback. */
export async function subscribeWebSub(s: WebSubSubscribe): Promise<void> {
  const res = await providerRequest('youtube', {
    method: 'POST',
    url: s.hubUrl,
    form: new URLSearchParams({
      'hub.mode': 'subscribe',
      'hub.topic': s.topic,
      'hub.callback': s.callbackUrl,
      'hub.verify': 'async',
      'hub.secret': s.secret,
      'hub.lease_seconds': String(s.leaseSeconds),
    }),
    timeoutMs: s.timeoutMs,
    idempotent: true,
  });
  if (res.status !== 202 && res.status !== 204)
    throw new ProviderError({
      platform: 'youtube',
      category: res.status >= 500 ? 'transient' : 'platform_rejected',
      message: `hub refused the subscription: ${typeof res.body === 'string' ? res.body.slice(0, 200) : res.status}`,
      httpStatus: res.status,
    });
}
