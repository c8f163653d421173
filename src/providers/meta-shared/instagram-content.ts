/**
 * Instagram content publishing, comments and insights. The same endpoints serve both Instagram APIs
 * (graph.facebook.com with Facebook Login, graph.instagram.com with Instagram Login), so both adapters
 * use this module with their own host and platform name.
 *
 * - https://developers.facebook.com/docs/instagram-platform/content-publishing
 * - https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
 * - https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-container
 * - https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media_publish
 * - https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments
 * - https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
 *
 * Flow: create a container per media (children for a carousel) -> wait until status_code is FINISHED ->
 * POST /{ig-user-id}/media_publish with creation_id. Waiting is left to the engine: while a container is
 * IN_PROGRESS the adapter answers `processing` with a poll token holding the stage reached.
 */
import {
  type FindRecentPostInput,
  type Platform,
  type PostCommentInput,
  type ProviderAppConfig,
  type ProviderCallContext,
  type ProviderComment,
  ProviderError,
  type ProviderPostAnalytics,
  type PublishMediaItem,
  type PublishRequest,
  type PublishResult,
  type RecentPostLookup,
} from '../provider.js';
import { graphFindRecentPost, graphItems, graphList, sinceFilter } from './graph-comments.js';
import { decodePollToken, encodePollToken, type GraphClient, type GraphParams, graphClient, trimBase } from './graph-http.js';

type Stage =
  | { stage: 'children'; children: string[]; caption: string; video: boolean }
  | { stage: 'container'; id: string; video: boolean };

const IMAGE_POLL_MS = 1_000;
const VIDEO_POLL_MS = 5_000;

export interface InstagramContentDeps {
  platform: Platform;
  graph: GraphClient;
  apiBase: string;
}

function userContent(platform: Platform, message: string, providerResponse?: unknown): ProviderError {
  return new ProviderError({
    platform,
    category: 'user_content',
    message,
    providerResponse,
  });
}

function singleParams(item: PublishMediaItem, request: PublishRequest): GraphParams {
  const postType = String(request.settings.postType ?? 'post');
  const params: GraphParams = { caption: request.text || undefined };
  if (postType === 'story') {
    params.media_type = 'STORIES';
    params.caption = undefined;
  } else if (item.kind === 'video') {
    // single feed videos are published as reels since July 2023
    params.media_type = 'REELS';
    params.share_to_feed = request.settings.shareToFeed === false ? 'false' : 'true';
    if (typeof request.settings.coverUrl === 'string') params.cover_url = request.settings.coverUrl;
    if (typeof request.settings.thumbOffsetMs === 'number') params.thumb_offset = request.settings.thumbOffsetMs;
  }
  if (item.kind === 'video') params.video_url = item.url;
  else {
    params.image_url = item.url;
    if (item.altText && postType !== 'story') params.alt_text = item.altText;
  }
  if (Array.isArray(request.settings.collaborators) && postType !== 'story') {
    params.collaborators = JSON.stringify(request.settings.collaborators);
  }
  return params;
}

/** What both Instagram clients build on: the platform's Graph caller, its API base and the content methods over them. */
export function instagramApi(platform: Platform, config: ProviderAppConfig) {
  const graph = graphClient(platform, config.timeoutMs);
  const api = trimBase(config.apiBaseUrl);
  return { graph, api, content: instagramContent({ platform, graph, apiBase: api }) };
}

export function instagramContent(deps: InstagramContentDeps) {
  const { platform, graph, apiBase } = deps;

  async function containerStatus(ctx: ProviderCallContext, id: string) {
    return graph.get<{ status_code?: string; status?: string }>(`${apiBase}/${id}`, ctx, { fields: 'status_code,status' });
  }

  function failIfBad(code: string | undefined, status: string | undefined, id: string): void {
    if (code === 'ERROR') throw userContent(platform, `container ${id} failed: ${status ?? 'ERROR'}`, { status_code: code, status });
    if (code === 'EXPIRED')
      throw new ProviderError({
        platform,
        category: 'platform_rejected',
        message: `container ${id} expired before publishing`,
      });
    if (code === 'PUBLISHED')
      throw new ProviderError({
        platform,
        category: 'unknown_outcome',
        message: `container ${id} is already published; the post exists but its id was not received`,
      });
  }

  function processing(state: Stage): PublishResult {
    return {
      status: 'processing',
      pollToken: encodePollToken(state),
      pollAfterMs: state.video ? VIDEO_POLL_MS : IMAGE_POLL_MS,
    };
  }

  async function advance(ctx: ProviderCallContext, state: Stage): Promise<PublishResult> {
    let current = state;
    if (current.stage === 'children') {
      for (const child of current.children) {
        const s = await containerStatus(ctx, child);
        failIfBad(s.status_code, s.status, child);
        if (s.status_code !== 'FINISHED') return processing(current);
      }
      const parent = await graph.post<{ id: string }>(
        `${apiBase}/${ctx.externalAccountId}/media`,
        ctx,
        {
          media_type: 'CAROUSEL',
          children: current.children.join(','),
          caption: current.caption || undefined,
        },
        true,
      );
      current = { stage: 'container', id: parent.id, video: current.video };
    }
    const s = await containerStatus(ctx, current.id);
    failIfBad(s.status_code, s.status, current.id);
    if (s.status_code !== 'FINISHED') return processing(current);
    const published = await graph.post<{ id: string }>(`${apiBase}/${ctx.externalAccountId}/media_publish`, ctx, {
      creation_id: current.id,
    });
    return {
      status: 'published',
      providerPostId: published.id,
      url: await permalinkOrNull(ctx, published.id),
    };
  }

  async function permalinkOrNull(ctx: ProviderCallContext, mediaId: string): Promise<string | null> {
    try {
      const media = await graph.get<{ permalink?: string }>(`${apiBase}/${mediaId}`, ctx, { fields: 'permalink' });
      return media.permalink ?? null;
    } catch {
      // the post exists; a missing permalink is fetched later through fetchPermalink
      return null;
    }
  }

  return {
    async publish(ctx: ProviderCallContext, request: PublishRequest): Promise<PublishResult> {
      if (request.media.length === 0) throw userContent(platform, 'Instagram posts need at least one image or video');
      const postType = String(request.settings.postType ?? 'post');
      if (postType === 'reel' && (request.media.length !== 1 || request.media[0]?.kind !== 'video'))
        throw userContent(platform, 'a reel is exactly one video');
      if (postType === 'story' && request.media.length !== 1) throw userContent(platform, 'a story is exactly one image or video');
      const video = request.media.some((m) => m.kind === 'video');
      if (request.media.length === 1) {
        const created = await graph.post<{ id: string }>(
          `${apiBase}/${ctx.externalAccountId}/media`,
          ctx,
          singleParams(request.media[0]!, request),
          true,
        );
        return advance(ctx, { stage: 'container', id: created.id, video });
      }
      const children: string[] = [];
      for (const item of request.media) {
        const params: GraphParams = { is_carousel_item: 'true' };
        if (item.kind === 'video') Object.assign(params, { media_type: 'VIDEO', video_url: item.url });
        else
          Object.assign(params, {
            image_url: item.url,
            alt_text: item.altText,
          });
        const child = await graph.post<{ id: string }>(`${apiBase}/${ctx.externalAccountId}/media`, ctx, params, true);
        children.push(child.id);
      }
      return advance(ctx, {
        stage: 'children',
        children,
        caption: request.text,
        video,
      });
    },

    pollPublish(ctx: ProviderCallContext, pollToken: string): Promise<PublishResult> {
      return advance(ctx, decodePollToken<Stage>(platform, pollToken));
    },

    async findRecentPost(ctx: ProviderCallContext, input: FindRecentPostInput): Promise<RecentPostLookup> {
      // stories are not on the media edge and carry no caption: the stories edge (the last 24 hours),
      // matched by time alone, so exactly one story in the attempt's window that no other target holds
      if (input.settings.postType === 'story')
        return graphFindRecentPost(
          graph,
          `${apiBase}/${ctx.externalAccountId}/stories`,
          ctx,
          { text: 'caption', createdAt: 'timestamp', url: 'permalink' },
          { ...input, text: '' },
        );
      return graphFindRecentPost(
        graph,
        `${apiBase}/${ctx.externalAccountId}/media`,
        ctx,
        { text: 'caption', createdAt: 'timestamp', url: 'permalink' },
        input,
      );
    },

    async fetchPermalink(ctx: ProviderCallContext, mediaId: string): Promise<string | null> {
      const media = await graph.get<{ permalink?: string }>(`${apiBase}/${mediaId}`, ctx, { fields: 'permalink' });
      return media.permalink ?? null;
    },

    async postComment(ctx: ProviderCallContext, input: PostCommentInput) {
      const url = input.replyToCommentId ? `${apiBase}/${input.replyToCommentId}/replies` : `${apiBase}/${input.providerPostId}/comments`;
      const created = await graph.post<{ id: string }>(url, ctx, {
        message: input.text,
      });
      return { providerCommentId: created.id };
    },

    async listComments(ctx: ProviderCallContext, input: { providerPostId: string; limit: number; since?: string }) {
      // top-level comments from /{media-id}/comments (page by page), then each one's /{comment-id}/replies, up to
      // limit; since is checked per item (the edge has no since parameter), and an older comment's newer replies count
      const fields = 'id,text,username,timestamp,like_count,parent_id,from{id,username},hidden';
      const keep = sinceFilter(input.since, 'timestamp');
      const rows: Array<Record<string, unknown>> = [];
      const pageSize = keep ? 100 : input.limit;
      for await (const c of graphItems(graph, `${apiBase}/${input.providerPostId}/comments`, ctx, { fields }, pageSize)) {
        if (!keep || keep(c)) rows.push(c);
        if (rows.length >= input.limit) break;
        // a comment deleted (or not readable) between the two calls answers Graph error 100/33: skip its replies
        const replies = await graphList(
          graph,
          `${apiBase}/${String(c.id)}/replies`,
          ctx,
          { fields },
          input.limit - rows.length,
          keep,
        ).catch((err: unknown) => {
          if (err instanceof ProviderError && err.providerCode === '100/33') return [] as Array<Record<string, unknown>>;
          throw err;
        });
        for (const r of replies) rows.push({ ...r, parent_id: r.parent_id ?? c.id });
        if (rows.length >= input.limit) break;
      }
      return rows.slice(0, input.limit).map(
        (c): ProviderComment => ({
          providerCommentId: String(c.id),
          parentProviderCommentId: typeof c.parent_id === 'string' ? c.parent_id : null,
          body: String(c.text ?? ''),
          authorName: null,
          authorHandle: typeof c.username === 'string' ? c.username : null,
          authorId: (c.from as { id?: string } | undefined)?.id ?? null,
          hidden: typeof c.hidden === 'boolean' ? c.hidden : undefined,
          permalinkUrl: null,
          providerCreatedAt: typeof c.timestamp === 'string' ? new Date(c.timestamp).toISOString() : null,
          metrics: { likes: Number(c.like_count ?? 0) },
        }),
      );
    },

    async hideComment(ctx: ProviderCallContext, input: { providerCommentId: string; hidden: boolean }) {
      await graph.post(`${apiBase}/${input.providerCommentId}`, ctx, { hide: input.hidden }, true);
    },

    async fetchPostAnalytics(ctx: ProviderCallContext, input: { providerPostId: string }): Promise<ProviderPostAnalytics> {
      const res = await graph.get<{ data?: InsightRow[] }>(`${apiBase}/${input.providerPostId}/insights`, ctx, {
        metric: 'views,reach,likes,comments,shares,saved,total_interactions',
      });
      return {
        capturedAt: new Date().toISOString(),
        metrics: insightMetrics(res.data ?? []),
      };
    },
  };
}

export interface InsightRow {
  name: string;
  values?: Array<{ value: number | Record<string, number> }>;
  total_value?: { value: number };
}

/** Flattens Graph insight rows; object values (e.g. reactions by type) are summed. */
export function insightMetrics(rows: InsightRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const row of rows) {
    const raw = row.total_value?.value ?? row.values?.[row.values.length - 1]?.value;
    if (typeof raw === 'number') out[row.name] = raw;
    else if (raw && typeof raw === 'object') out[row.name] = Object.values(raw).reduce((a, b) => a + Number(b || 0), 0);
  }
  return out;
}
