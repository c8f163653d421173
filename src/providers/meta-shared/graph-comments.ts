/** Cursor pagination over a Graph list edge (comments, replies, conversation), up to `limit` items. */
import type { ProviderCallContext } from '../provider.js';
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
