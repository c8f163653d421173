/**
 * Facebook Pages API (graph.facebook.com, videos on graph-video.facebook.com). Official documentation:
 * - Pages and page access tokens: https://developers.facebook.com/docs/pages-api/getting-started and
 *   https://developers.facebook.com/docs/graph-api/reference/user/accounts
 * - Posts (feed, links, multi-photo attached_media): https://developers.facebook.com/docs/pages-api/posts
 * - Read-after-write (`fields` on a POST answers the created object with those fields, v2.9 on):
 *   https://developers.facebook.com/docs/graph-api/changelog/version2.9
 * - Photos: https://developers.facebook.com/docs/graph-api/reference/page/photos
 * - Videos: https://developers.facebook.com/docs/video-api/guides/publishing and
 *   https://developers.facebook.com/docs/graph-api/reference/video (status.video_status)
 * - Comments: https://developers.facebook.com/docs/pages-api/comments-mentions and
 *   https://developers.facebook.com/docs/graph-api/reference/object/comments
 * - Post insights: https://developers.facebook.com/docs/graph-api/reference/insights#page-posts
 * - Pages search: https://developers.facebook.com/docs/pages-api/search-pages
 * - Errors: https://developers.facebook.com/docs/graph-api/guides/error-handling
 *
 * Error mapping (meta-shared/graph-errors.ts): 190/102 -> auth_expired; 4, 17, 32, 613, 80001 (Pages
 * business use case) and 429 -> rate_limited with estimated_time_to_regain_access; 1, 2, is_transient,
 * 5xx -> transient; 100, 324 (image), 351/352/389 (video file/fetch), 506 (duplicate), 1609005 (link)
 * -> user_content; 10, 200-299, 368 -> platform_rejected; a lost answer to feed/photos/videos/comments
 * -> unknown_outcome.
 */

import { graphList } from '../meta-shared/graph-comments.js';
import { decodePollToken, encodePollToken, graphClient, trimBase } from '../meta-shared/graph-http.js';
import { type InsightRow, insightMetrics } from '../meta-shared/instagram-content.js';
import {
  type FindRecentPostInput,
  type PostCommentInput,
  type ProviderAccount,
  type ProviderAppConfig,
  type ProviderCallContext,
  type ProviderComment,
  ProviderError,
  type PublishRequest,
  type PublishResult,
  type RecentPostLookup,
} from '../provider.js';
import { findInListing } from '../shared/recent-posts.js';

const VIDEO_POLL_MS = 5_000;

interface VideoStatus {
  status?: { video_status?: string; publishing_phase?: { status?: string } };
  permalink_url?: string;
  post_id?: string;
}

export function facebookPageClient(config: ProviderAppConfig) {
  const platform = 'facebook_page' as const;
  const graph = graphClient(platform, config.timeoutMs);
  const api = trimBase(config.apiBaseUrl);
  const video = trimBase(config.uploadBaseUrl);

  const absolute = (url: string) => (url.startsWith('/') ? `https://www.facebook.com${url}` : url);

  async function permalink(ctx: ProviderCallContext, id: string): Promise<string | null> {
    const res = await graph.get<{ permalink_url?: string }>(`${api}/${id}`, ctx, { fields: 'permalink_url' });
    return res.permalink_url ? absolute(res.permalink_url) : null;
  }

  /** `known`: the permalink the write answered already (read-after-write), so no GET is needed */
  async function published(ctx: ProviderCallContext, id: string, known?: string): Promise<PublishResult> {
    if (known) return { status: 'published', providerPostId: id, url: absolute(known) };
    let url: string | null = null;
    try {
      url = await permalink(ctx, id);
    } catch {
      // the post exists; the permalink can be fetched later
    }
    return { status: 'published', providerPostId: id, url };
  }

  async function videoState(ctx: ProviderCallContext, videoId: string): Promise<PublishResult> {
    const v = await graph.get<VideoStatus>(`${api}/${videoId}`, ctx, {
      fields: 'status,permalink_url,post_id',
    });
    const state = v.status?.video_status;
    if (state === 'error') {
      throw new ProviderError({
        platform,
        category: 'user_content',
        message: `video ${videoId} failed processing`,
        providerResponse: v,
      });
    }
    if (state === 'ready' && (v.status?.publishing_phase?.status ?? 'complete') === 'complete') {
      return {
        status: 'published',
        providerPostId: v.post_id ?? videoId,
        url: v.permalink_url ? new URL(v.permalink_url, 'https://www.facebook.com').toString() : null,
      };
    }
    return {
      status: 'processing',
      pollToken: encodePollToken({ videoId }),
      pollAfterMs: VIDEO_POLL_MS,
      providerPostId: videoId,
    };
  }

  return {
    graph,
    api,
    async pages(accessToken: string): Promise<ProviderAccount[]> {
      const res = await graph.get<{ data?: Array<Record<string, unknown>> }>(
        `${api}/me/accounts`,
        { accessToken },
        {
          fields: 'id,name,username,access_token,picture{url},tasks',
          limit: 100,
        },
      );
      return (res.data ?? [])
        .filter((p) => !Array.isArray(p.tasks) || p.tasks.includes('CREATE_CONTENT'))
        .map((p) => ({
          externalAccountId: String(p.id),
          displayName: String(p.name ?? p.id),
          handle: typeof p.username === 'string' ? p.username : null,
          avatarUrl: ((p.picture as { data?: { url?: string } } | undefined)?.data?.url as string | undefined) ?? null,
          accountAccessToken: typeof p.access_token === 'string' ? p.access_token : undefined,
        }));
    },

    async publish(ctx: ProviderCallContext, request: PublishRequest): Promise<PublishResult> {
      const page = ctx.externalAccountId;
      const link = typeof request.settings.link === 'string' ? request.settings.link : undefined;
      const videos = request.media.filter((m) => m.kind === 'video');
      if (videos.length > 0) {
        if (request.media.length > 1) {
          throw new ProviderError({
            platform,
            category: 'user_content',
            message: 'a Facebook video post holds exactly one video',
          });
        }
        const created = await graph.post<{ id: string }>(`${video}/${page}/videos`, ctx, {
          file_url: videos[0]!.url,
          description: request.text || undefined,
          title: typeof request.settings.videoTitle === 'string' ? request.settings.videoTitle : undefined,
        });
        return videoState(ctx, created.id);
      }
      if (request.media.length === 1) {
        const item = request.media[0]!;
        const photo = await graph.post<{ id: string; post_id?: string }>(`${api}/${page}/photos`, ctx, {
          url: item.url,
          message: request.text || undefined,
          alt_text_custom: item.altText,
        });
        return published(ctx, photo.post_id ?? photo.id);
      }
      const params: Record<string, string | undefined> = {
        message: request.text || undefined,
        link,
      };
      if (request.media.length > 1) {
        // unpublished photos create no post, so uploading them again is harmless
        for (const [i, item] of request.media.entries()) {
          const photo = await graph.post<{ id: string }>(
            `${api}/${page}/photos`,
            ctx,
            {
              url: item.url,
              published: 'false',
              alt_text_custom: item.altText,
            },
            true,
          );
          params[`attached_media[${i}]`] = JSON.stringify({
            media_fbid: photo.id,
          });
        }
        params.link = undefined;
      } else if (!request.text && !link) {
        throw new ProviderError({
          platform,
          category: 'user_content',
          message: 'a Facebook post needs text, a link or media',
        });
      }
      // read-after-write: the post's permalink comes back with the write (one request instead of two);
      // an answer without it falls back to a GET
      const post = await graph.post<{ id: string; permalink_url?: string }>(`${api}/${page}/feed`, ctx, {
        ...params,
        fields: 'id,permalink_url',
      });
      return published(ctx, post.id, post.permalink_url);
    },

    pollPublish(ctx: ProviderCallContext, pollToken: string): Promise<PublishResult> {
      return videoState(ctx, decodePollToken<{ videoId: string }>(platform, pollToken).videoId);
    },

    /**
     * Crash reconciliation of a video post: GET /{page-id}/videos (newest first, cursor paging) lists a
     * video from its upload on, with `description` (our text), `created_time` and `status`. A video whose
     * processing failed is no post (absent, so it can be queued again); one still processing is unknown.
     */
    async findRecentVideo(ctx: ProviderCallContext, input: FindRecentPostInput): Promise<RecentPostLookup> {
      const statuses = new Map<string, VideoStatus['status']>();
      // failed videos are no post: excluded from the match (the listing reads the list after the walk)
      const excludeIds = [...input.excludeIds];
      const found = await findInListing({ ...input, excludeIds }, async (after) => {
        const res = await graph.get<{
          data?: Array<VideoStatus & { id: string; description?: string; created_time?: string }>;
          paging?: { cursors?: { after?: string }; next?: string };
        }>(`${api}/${ctx.externalAccountId}/videos`, ctx, {
          fields: 'id,description,created_time,permalink_url,status,post_id',
          limit: 25,
          after,
        });
        const posts = (res.data ?? []).map((v) => {
          const id = String(v.post_id ?? v.id);
          statuses.set(id, v.status);
          if (v.status?.video_status === 'error') excludeIds.push(id);
          return {
            id,
            text: v.description ?? '',
            createdAt: Date.parse(String(v.created_time ?? '').replace(/\+0000$/, 'Z')),
            url: v.permalink_url ? new URL(v.permalink_url, 'https://www.facebook.com').toString() : null,
          };
        });
        return { posts, next: res.paging?.next ? res.paging.cursors?.after : undefined };
      });
      if (found.status !== 'found') return found;
      const status = statuses.get(found.providerPostId);
      if (status && (status.video_status !== 'ready' || (status.publishing_phase?.status ?? 'complete') !== 'complete'))
        return { status: 'unknown', reason: 'the video is still processing' };
      return found;
    },

    permalink,

    async postComment(ctx: ProviderCallContext, input: PostCommentInput) {
      const target = input.replyToCommentId ?? input.providerPostId;
      const created = await graph.post<{ id: string }>(`${api}/${target}/comments`, ctx, { message: input.text });
      return { providerCommentId: created.id };
    },

    async listComments(ctx: ProviderCallContext, input: { providerPostId: string; limit: number; since?: string }) {
      // filter=stream lists replies too (each with its parent), so one paginated edge gives the whole thread
      const data = await graphList(
        graph,
        `${api}/${input.providerPostId}/comments`,
        ctx,
        {
          fields: 'id,message,from{id,name},created_time,permalink_url,like_count,comment_count,parent{id},is_hidden',
          filter: 'stream',
          order: 'chronological',
          since: input.since ? Math.floor(Date.parse(input.since) / 1000) : undefined,
        },
        input.limit,
      );
      return data.map(
        (c): ProviderComment => ({
          providerCommentId: String(c.id),
          parentProviderCommentId: (c.parent as { id?: string } | undefined)?.id ?? null,
          body: String(c.message ?? ''),
          authorName: (c.from as { name?: string } | undefined)?.name ?? null,
          authorHandle: null,
          authorId: (c.from as { id?: string } | undefined)?.id ?? null,
          hidden: typeof c.is_hidden === 'boolean' ? c.is_hidden : undefined,
          permalinkUrl: typeof c.permalink_url === 'string' ? c.permalink_url : null,
          providerCreatedAt: typeof c.created_time === 'string' ? new Date(c.created_time).toISOString() : null,
          metrics: {
            likes: Number(c.like_count ?? 0),
            replies: Number(c.comment_count ?? 0),
          },
        }),
      );
    },

    async hideComment(ctx: ProviderCallContext, input: { providerCommentId: string; hidden: boolean }) {
      await graph.post(`${api}/${input.providerCommentId}`, ctx, { is_hidden: input.hidden }, true);
    },

    async insights(ctx: ProviderCallContext, postId: string) {
      const res = await graph.get<{ data?: InsightRow[] }>(`${api}/${postId}/insights`, ctx, {
        metric: 'post_impressions_unique,post_clicks,post_reactions_by_type_total',
      });
      return {
        capturedAt: new Date().toISOString(),
        metrics: insightMetrics(res.data ?? []),
      };
    },

    async profile(ctx: ProviderCallContext): Promise<Record<string, unknown>> {
      const p = await graph.get<Record<string, unknown>>(`${api}/${ctx.externalAccountId}`, ctx, {
        fields: 'id,name,username,about,category,fan_count,followers_count,link,picture{url}',
      });
      return {
        externalAccountId: String(p.id),
        displayName: p.name ?? null,
        handle: p.username ?? null,
        about: p.about ?? null,
        category: p.category ?? null,
        link: p.link ?? null,
        avatarUrl: (p.picture as { data?: { url?: string } } | undefined)?.data?.url ?? null,
        fanCount: Number(p.fan_count ?? 0),
        followersCount: Number(p.followers_count ?? 0),
      };
    },

    async searchPages(ctx: ProviderCallContext, query: string): Promise<Array<Record<string, unknown>>> {
      const res = await graph.get<{ data?: Array<Record<string, unknown>> }>(`${api}/pages/search`, ctx, {
        q: query,
        fields: 'id,name,link,verification_status',
        limit: 25,
      });
      return (res.data ?? []).map((p) => ({
        externalAccountId: String(p.id),
        displayName: p.name ?? null,
        link: p.link ?? null,
        verified: p.verification_status === 'blue_verified',
      }));
    },
  };
}
