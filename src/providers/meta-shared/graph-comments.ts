/** Cursor pagination over a Graph list edge (comments, replies, conversation), up to `limit` items. */
import type { FindRecentPostInput, ProviderCallContext, RecentPostLookup } from '../provider.js';
import { findInListing } from '../shared/recent-posts.js';
import type { GraphClient, GraphParams } from './graph-http.js';

interface GraphPage {
  data?: Array<Record<string, unknown>>;
  paging?: { cursors?: { after?: string }; next?: string };
}

export async function graphList(
  graph: GraphClient,
  url: string,
  ctx: ProviderCallContext,
  params: GraphParams,
  limit: number,
): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let after: string | undefined;
  for (let pageNo = 0; pageNo < 100 && out.length < limit; pageNo++) {
    const res = await graph.get<GraphPage>(url, ctx, { ...params, limit: Math.min(100, limit - out.length), after });
    out.push(...(res.data ?? []).slice(0, limit - out.length));
    after = res.paging?.cursors?.after;
    // Graph omits `next` on the last page
    if (!res.paging?.next || !after || (res.data ?? []).length === 0) break;
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
  return findInListing(input, async (after) => {
    const res = await graph.get<GraphPage>(url, ctx, {
      fields: `id,${fields.text},${fields.createdAt},${fields.url}`,
      limit: 25,
      after,
    });
    const posts = (res.data ?? []).map((p) => ({
      id: String(p.id),
      text: typeof p[fields.text] === 'string' ? (p[fields.text] as string) : '',
      createdAt: Date.parse(String(p[fields.createdAt] ?? '').replace(/\+0000$/, 'Z')),
      url: typeof p[fields.url] === 'string' ? new URL(p[fields.url] as string, 'https://www.facebook.com').toString() : null,
    }));
    return { posts, next: res.paging?.next ? res.paging.cursors?.after : undefined };
  });
}
