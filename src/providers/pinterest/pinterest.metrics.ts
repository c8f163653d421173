/**
 * Pin metrics on Pinterest through API v5: GET /v5/pins/{pin_id}/analytics with metric_types
 * IMPRESSION, SAVE, PIN_CLICK, OUTBOUND_CLICK over the last 90 days (Pinterest keeps 90 days of Pin
 * analytics): https://developers.pinterest.com/docs/api/v5/pins-analytics . The summary (lifetime
 * within the window) is used; a metric type missing from it is null.
 */
import type { ProviderCallContext, ProviderPostMetrics } from '../provider.js';
import type { PinterestClient } from './pinterest.client.js';

/** normalized name -> Pinterest metric type */
const PINTEREST_METRIC_FIELDS = {
  views: 'IMPRESSION',
  saves: 'SAVE',
  pin_clicks: 'PIN_CLICK',
  outbound_clicks: 'OUTBOUND_CLICK',
} as const;

export async function fetchPinterestPostMetrics(
  client: PinterestClient,
  ctx: ProviderCallContext,
  input: { providerPostId: string },
): Promise<ProviderPostMetrics> {
  const types = Object.values(PINTEREST_METRIC_FIELDS);
  const answer = await client.pinAnalytics(ctx.accessToken, input.providerPostId, types, ctx.signal);
  const summary = (answer.all?.summary_metrics ?? answer.all?.lifetime_metrics ?? {}) as Record<string, unknown>;
  const metrics: Record<string, number | null> = {};
  for (const [name, type] of Object.entries(PINTEREST_METRIC_FIELDS)) {
    const v = summary[type];
    metrics[name] = typeof v === 'number' && Number.isFinite(v) ? v : null;
  }
  return { providerPostId: input.providerPostId, metrics, metricNames: types, apiVersion: 'pinterest/v5' };
}
