/**
 * Translations between YouTube answers and the port's shapes: token answers, upload and processing
 * status, comment resources, and the public watch URL.
 */
import { type OAuthTokens, type ProviderComment, ProviderError, type PublishResult } from '../provider.js';
import type { GoogleTokenResponse, YoutubeCommentSnippet, YoutubeVideoResource } from './youtube.client.js';

const PLATFORM = 'youtube' as const;
const PROCESSING_POLL_MS = 15_000;

export function youtubeWatchUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`;
}

export function fail(category: ProviderError['category'], message: string, providerCode: string | null = null): never {
  throw new ProviderError({
    platform: PLATFORM,
    category,
    message,
    providerCode,
  });
}

export function toTokens(body: GoogleTokenResponse, previousRefreshToken: string | null): OAuthTokens {
  return {
    accessToken: body.access_token,
    // Google answers a refresh without a new refresh token: the old one stays valid
    refreshToken: body.refresh_token ?? previousRefreshToken,
    expiresAt: typeof body.expires_in === 'number' ? new Date(Date.now() + body.expires_in * 1000) : null,
    refreshTokenExpiresAt: null,
    scopes: (body.scope ?? '').split(' ').filter(Boolean),
    extra: {},
  };
}

/** Where a video stands after upload: live, still processing, or refused. */
export function videoResult(video: YoutubeVideoResource): PublishResult {
  const upload = video.status?.uploadStatus ?? 'uploaded';
  if (upload === 'processed')
    return {
      status: 'published',
      providerPostId: video.id,
      url: youtubeWatchUrl(video.id),
    };
  if (upload === 'failed') {
    fail(
      'user_content',
      `youtube could not process the video: ${video.status?.failureReason ?? 'unknown'}`,
      video.status?.failureReason ?? null,
    );
  }
  if (upload === 'rejected' || upload === 'deleted') {
    const reason = video.status?.rejectionReason ?? upload;
    fail(reason === 'length' ? 'user_content' : 'platform_rejected', `youtube rejected the video: ${reason}`, reason);
  }
  return {
    status: 'processing',
    pollToken: video.id,
    pollAfterMs: PROCESSING_POLL_MS,
    providerPostId: video.id,
  };
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function toComment(id: string, s: YoutubeCommentSnippet | undefined, parentId: string | null, videoId: string): ProviderComment {
  return {
    providerCommentId: id,
    parentProviderCommentId: parentId,
    body: s?.textOriginal ?? s?.textDisplay ?? '',
    authorName: s?.authorDisplayName ?? null,
    authorHandle: s?.authorChannelUrl?.split('/').pop() ?? null,
    permalinkUrl: `${youtubeWatchUrl(videoId)}&lc=${encodeURIComponent(id)}`,
    providerCreatedAt: s?.publishedAt ?? null,
    metrics: { likes: s?.likeCount ?? 0 },
  };
}
