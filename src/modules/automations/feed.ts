/**
 * Feed fetching and reading for rss_feed sources: a conditional GET through the guarded client
 * (byte and time caps), RSS 2.0 / RSS 1.0 / Atom parsed by @rowanmanning/feed-parser, and items
 * reduced to what a run needs, each with its dedupe keys (guid/id, link, content hash).
 */
import { createHash } from 'node:crypto';
import type { parseFeed as ParseFeed } from '@rowanmanning/feed-parser';
import { GuardedFetchError, type GuardedHttpClient } from '../../platform/http-client/guarded-client.js';

export class RunFailure extends Error {
  constructor(
    readonly errorClass: string,
    message: string,
  ) {
    super(message);
  }
}

export interface FeedValidators {
  etag?: string;
  lastModified?: string;
}

export interface FeedItemView {
  /** position in the document (feeds list newest first) */
  index: number;
  title: string;
  link: string;
  summary: string;
  date: Date | null;
  imageUrl: string | null;
  keys: string[];
}

export type FeedFetch = { kind: 'not_modified' } | { kind: 'document'; body: string; validators: FeedValidators };

export async function fetchFeed(
  client: GuardedHttpClient,
  url: string,
  validators: FeedValidators,
  caps: { maxBytes: number },
): Promise<FeedFetch> {
  const headers: Record<string, string> = {
    accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5',
  };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  try {
    const res = await client.get(url, { maxBytes: caps.maxBytes, headers });
    if (res.status === 304) {
      await res.discard();
      return { kind: 'not_modified' };
    }
    if (res.status < 200 || res.status > 299) {
      await res.discard();
      throw new RunFailure('feed_http_error', `The feed answered HTTP ${res.status}.`);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(chunk);
    return {
      kind: 'document',
      body: Buffer.concat(chunks).toString('utf8'),
      validators: {
        ...(res.headers.etag ? { etag: res.headers.etag } : {}),
        ...(res.headers['last-modified'] ? { lastModified: res.headers['last-modified'] } : {}),
      },
    };
  } catch (err) {
    if (err instanceof RunFailure) throw err;
    if (err instanceof GuardedFetchError) {
      if (err.code === 'response_too_large') throw new RunFailure('feed_too_large', `The feed is larger than ${caps.maxBytes} bytes.`);
      if (err.code === 'timeout') throw new RunFailure('feed_timeout', 'The feed did not answer in time.');
      if (err.code === 'connect_failed' || err.code === 'dns_failed')
        throw new RunFailure('feed_fetch_failed', `The feed could not be fetched: ${err.message}.`);
      throw new RunFailure('feed_url_refused', `The feed URL is refused: ${err.message}.`);
    }
    throw new RunFailure('feed_fetch_failed', `The feed could not be fetched: ${(err as Error).message}.`);
  }
}

const stripTags = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();

/** The feed parser (and its XML parser) load with the first feed read: only a worker running automations needs them. */
let feedParser: Promise<typeof ParseFeed> | null = null;

export async function readFeed(body: string): Promise<FeedItemView[]> {
  feedParser ??= import('@rowanmanning/feed-parser').then((m) => m.parseFeed);
  const parseFeed = await feedParser;
  let feed: ReturnType<typeof ParseFeed>;
  try {
    feed = parseFeed(body);
  } catch (err) {
    throw new RunFailure('feed_invalid', `The document is not an RSS or Atom feed: ${(err as Error).message}`);
  }
  return feed.items.map((item, index) => {
    const title = stripTags(item.title ?? '');
    const link = item.url ?? '';
    const summary = stripTags(item.description ?? item.content ?? '');
    const date = item.published ?? item.updated ?? null;
    const image = item.mediaImages.find((m) => m.url)?.url ?? item.image?.url ?? null;
    const hash = createHash('sha256')
      .update(JSON.stringify([title, link, summary]))
      .digest('base64url');
    const keys = [`hash:${hash}`];
    if (item.id) keys.unshift(`id:${item.id}`);
    if (link) keys.push(`link:${link}`);
    return { index, title, link, summary, date: date && !Number.isNaN(date.getTime()) ? date : null, imageUrl: image, keys };
  });
}

/** Oldest first: dated items by date, undated ones by reverse document order (feeds list newest first). */
export function oldestFirst(items: FeedItemView[]): FeedItemView[] {
  return [...items].sort((a, b) => {
    if (a.date && b.date && a.date.getTime() !== b.date.getTime()) return a.date.getTime() - b.date.getTime();
    return b.index - a.index;
  });
}

export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => values[name] ?? '').trim();
}
