/**
 * Post metrics on X through post lookup with public_metrics:
 * GET /2/tweets?ids=<id>&tweet.fields=public_metrics
 * https://docs.x.com/x-api/posts/lookup/api-reference/get-tweets
 * A field missing from public_metrics (e.g. impression_count on posts from before it existed) is null.
 */
import { type ProviderCallContext, ProviderError, type ProviderPostMetrics } from '../provider.js';
import type { XClient } from './x.client.js';

/** normalized name -> X public_metrics field (the sandbox's metrics control takes the same names) */
export const X_METRIC_FIELDS = {
  views: 'impression_count',
  likes: 'like_count',
  replies: 'reply_count',
  reposts: 'retweet_count',
  quotes: 'quote_count',
  bookmarks: 'bookmark_count',
} as const;

export async function fetchXPostMetrics(
  client: XClient,
  ctx: ProviderCallContext,
  input: { providerPostId: string },
): Promise<ProviderPostMetrics> {
  const res = await client.get<{ data?: Array<{ id: string; public_metrics?: Record<string, unknown> }>; errors?: unknown[] }>(
    ctx.accessToken,
    '/tweets',
    { ids: input.providerPostId, 'tweet.fields': 'public_metrics' },
    ctx.signal,
  );
  const post = res.data?.find((t) => t.id === input.providerPostId);
  if (!post) {
    throw new ProviderError({
      platform: 'x',
      category: 'user_content',
      message: `post ${input.providerPostId} not found`,
      providerCode: 'resource-not-found',
      providerResponse: res.errors ?? null,
    });
  }
  const pm = post.public_metrics ?? {};
  const metrics: Record<string, number | null> = {};
  for (const [name, field] of Object.entries(X_METRIC_FIELDS)) {
    const v = pm[field];
    metrics[name] = typeof v === 'number' && Number.isFinite(v) ? v : null;
  }
  return { providerPostId: post.id, metrics, metricNames: Object.values(X_METRIC_FIELDS), apiVersion: 'x/2' };
}
