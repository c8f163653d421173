/**
 * Page post metrics on Facebook through post insights: GET /{post-id}/insights?metric=...
 * https://developers.facebook.com/docs/graph-api/reference/insights#page-posts
 *
 * Meta deprecated the post impression metrics in favour of media views: post_impressions ->
 * post_media_view (reported as `views`) and post_impressions_unique -> post_total_media_view_unique
 * (reported as `viewers`). The successors are asked for first; a Graph API version that does not know
 * them yet (error #100 on the metric) is asked for the deprecated ones, mapped to the same names, so a
 * snapshot series keeps one name across the change.
 */
import { graphClient, trimBase } from '../meta-shared/graph-http.js';
import type { InsightRow } from '../meta-shared/instagram-content.js';
import { type ProviderAppConfig, type ProviderCallContext, ProviderError, type ProviderPostMetrics } from '../provider.js';

/** normalized name -> [current metric, deprecated predecessor or null] */
const FACEBOOK_METRIC_FIELDS = {
  views: ['post_media_view', 'post_impressions'],
  viewers: ['post_total_media_view_unique', 'post_impressions_unique'],
  clicks: ['post_clicks', null],
  reactions: ['post_reactions_by_type_total', null],
} as const;

function value(row: InsightRow | undefined): number | null {
  if (!row) return null;
  const raw = row.total_value?.value ?? row.values?.[row.values.length - 1]?.value;
  if (typeof raw === 'number' && Number.isFinite(raw)) return raw;
  // reactions by type: {like: 3, love: 1} -> 4
  if (raw && typeof raw === 'object') return Object.values(raw).reduce((a, b) => a + Number(b || 0), 0);
  return null;
}

export function facebookPageMetrics(config: ProviderAppConfig) {
  const graph = graphClient('facebook_page', config.timeoutMs);
  const api = trimBase(config.apiBaseUrl);
  const version = /\/(v\d+\.\d+)$/.exec(api)?.[1];
  const apiVersion = version ? `graph/${version}` : 'graph';

  const read = async (ctx: ProviderCallContext, postId: string, legacy: boolean) => {
    const names = Object.values(FACEBOOK_METRIC_FIELDS).map(([now, old]) => (legacy && old ? old : now));
    const res = await graph.get<{ data?: InsightRow[] }>(`${api}/${encodeURIComponent(postId)}/insights`, ctx, { metric: names.join(',') });
    return { names, rows: res.data ?? [] };
  };

  return async (ctx: ProviderCallContext, input: { providerPostId: string }): Promise<ProviderPostMetrics> => {
    let answer: Awaited<ReturnType<typeof read>>;
    try {
      answer = await read(ctx, input.providerPostId, false);
    } catch (err) {
      // an older Graph version refuses the successor metrics by name (#100): ask for the deprecated ones
      const unknownMetric =
        err instanceof ProviderError &&
        /^100(\/|$)/.test(err.providerCode ?? '') &&
        /metric/i.test(`${err.message} ${JSON.stringify(err.providerResponse)}`);
      if (!unknownMetric) throw err;
      answer = await read(ctx, input.providerPostId, true);
    }
    const byName = new Map(answer.rows.map((r) => [r.name, r]));
    const metrics: Record<string, number | null> = {};
    for (const [name, [now, old]] of Object.entries(FACEBOOK_METRIC_FIELDS)) {
      metrics[name] = value(byName.get(now) ?? (old ? byName.get(old) : undefined));
    }
    return { providerPostId: input.providerPostId, metrics, metricNames: answer.names, apiVersion };
  };
}
