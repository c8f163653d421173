/** Cursor pagination over a Graph list edge (comments, replies, conversation), up to `limit` items. */
import type { FindRecentPostInput, ProviderCallContext, RecentPostLookup } from '../provider.js';
import { findInListing } from '../shared/recent-posts.js';
import type { GraphClient, GraphParams } from './graph-http.js';

interface GraphPage {
  data?: Array<Record<string, unknown>>;
  paging?: { cursors?: { after?: string }; next?: string };
}

type Item = Record<string, unknown>;

/** The edge's items page by page (`paging.cursors.after` until Graph omits `next`), at most 100 pages. */
export async function* graphItems(
  graph: GraphClient,
  url: string,
  ctx: ProviderCallContext,
  params: GraphParams,
  pageSize: number,
): AsyncGenerator<Item> {
  let after: string | undefined;
  for (let pageNo = 0; pageNo < 100; pageNo++) {
    const res = await graph.get<GraphPage>(url, ctx, { ...params, limit: Math.max(1, Math.min(100, pageSize)), after });
    for (const item of res.data ?? []) yield item;
    after = res.paging?.cursors?.after;
    // Graph omits `next` on the last page
    if (!res.paging?.next || !after || (res.data ?? []).length === 0) return;
  }
}

/** Up to `limit` items the `keep` filter accepts (all by default), reading further pages as needed. */
export async function graphList(
  graph: GraphClient,
  url: string,
  ctx: ProviderCallContext,
  params: GraphParams,
  limit: number,
  keep?: (item: Item) => boolean,
): Promise<Item[]> {
  const out: Item[] = [];
  if (limit <= 0) return out;
  // with a filter, skipped items do not count: ask for full pages
  for await (const item of graphItems(graph, url, ctx, params, keep ? 100 : limit)) {
    if (keep && !keep(item)) continue;
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Crash reconciliation on a Graph list of the account's posts (newest first, cursor pagination):
 * Pages `/{page-id}/posts`, Instagram `/{ig-user-id}/media`, Threads `/{threads-user-id}/threads`.
 */
export function graphFindRecentPost(
  graph: GraphClient,
  url: string,
  ctx: ProviderCallContext,
  fields: { text: string; createdAt: string; url: string },
  input: FindRecentPostInput,
): Promise<RecentPostLookup> {
  return findInListing(
    input,
    async (after) => {
      const res = await graph.get<GraphPage>(url, ctx, {
        fields: `id,${fields.text},${fields.createdAt},${fields.url}`,
        // Graph's largest page for an object's posts
        limit: 100,
        after,
      });
      const posts = (res.data ?? []).map((p) => ({
        id: String(p.id),
        text: typeof p[fields.text] === 'string' ? (p[fields.text] as string) : '',
        createdAt: Date.parse(String(p[fields.createdAt] ?? '').replace(/\+0000$/, 'Z')),
        url: typeof p[fields.url] === 'string' ? new URL(p[fields.url] as string, 'https://www.facebook.com').toString() : null,
      }));
      return { posts, next: res.paging?.next ? res.paging.cursors?.after : undefined };
    },
    `${url} ${fields.text}`,
  );
}

/** A filter keeping items whose `field` timestamp is at or after `since` (ISO); undefined without one. */
export function sinceFilter(since: string | undefined, field: string): ((item: Item) => boolean) | undefined {
  const at = since ? Date.parse(since) : Number.NaN;
  if (!Number.isFinite(at)) return undefined;
  return (item) => Date.parse(String(item[field])) >= at;
}
