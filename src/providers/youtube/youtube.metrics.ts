/**
 * Video metrics on YouTube through the Data API: videos.list part=statistics
 * https://developers.google.com/youtube/v3/docs/videos/list (statistics: viewCount, likeCount,
 * favoriteCount, commentCount; counts are strings). likeCount is absent when the owner hides likes and
 * commentCount when comments are off: those are null, not 0. Costs 1 quota unit per call.
 */
import { type ProviderCallContext, ProviderError, type ProviderPostMetrics } from '../provider.js';
import type { YoutubeClient } from './youtube.client.js';

/** normalized name -> statistics field */
const YOUTUBE_METRIC_FIELDS = {
  views: 'viewCount',
  likes: 'likeCount',
  comments: 'commentCount',
  favorites: 'favoriteCount',
} as const;

export async function fetchYoutubePostMetrics(
  client: YoutubeClient,
  ctx: ProviderCallContext,
  input: { providerPostId: string },
): Promise<ProviderPostMetrics> {
  const [video] = await client.listVideos(ctx.accessToken, [input.providerPostId], 'statistics', ctx.signal);
  if (!video) {
    throw new ProviderError({
      platform: 'youtube',
      category: 'user_content',
      message: `video ${input.providerPostId} not found`,
      providerCode: 'videoNotFound',
    });
  }
  const stats = (video.statistics ?? {}) as Record<string, unknown>;
  const metrics: Record<string, number | null> = {};
  for (const [name, field] of Object.entries(YOUTUBE_METRIC_FIELDS)) {
    const raw = stats[field];
    const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : Number.NaN;
    metrics[name] = raw !== undefined && raw !== '' && Number.isFinite(n) ? n : null;
  }
  return { providerPostId: input.providerPostId, metrics, metricNames: Object.values(YOUTUBE_METRIC_FIELDS), apiVersion: 'youtube/v3' };
}
