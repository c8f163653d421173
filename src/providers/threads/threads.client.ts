/**
 * Threads API (graph.threads.net). Official documentation:
 * - Posts, containers and carousels: https://developers.facebook.com/docs/threads/posts
 * - Publishing reference (threads, threads_publish, container status):
 *   https://developers.facebook.com/docs/threads/reference/publishing
 * - Media container status (status, error_message): https://developers.facebook.com/docs/threads/troubleshooting
 * - Replies (reply_to_id, /replies): https://developers.facebook.com/docs/threads/reply-management
 *   (reply quota: GET /{threads-user-id}/threads_publishing_limit?fields=reply_quota_usage,reply_config)
 * - Insights: https://developers.facebook.com/docs/threads/insights
 * - Profiles and profile discovery: https://developers.facebook.com/docs/threads/threads-profiles
 * - Errors follow the Graph error body: https://developers.facebook.com/docs/graph-api/guides/error-handling
 *
 * Error mapping (meta-shared/graph-errors.ts): 190 -> auth_expired; 4, 17, 613, the 24 h publishing
 * quota and 429 -> rate_limited; 1, 2, is_transient, 5xx -> transient; 100 and media errors ->
 * user_content; 10, 200-299 -> platform_rejected; container ERROR (error_message such as
 * FAILED_DOWNLOADING_VIDEO) -> user_content; a lost answer to threads_publish -> unknown_outcome.
 */

import { graphList, sinceFilter } from '../meta-shared/graph-comments.js';
import { parseGraphError } from '../meta-shared/graph-errors.js';
import { decodePollToken, encodePollToken, type GraphParams, graphClient, trimBase } from '../meta-shared/graph-http.js';
import { type InsightRow, insightMetrics } from '../meta-shared/instagram-content.js';
import {
  type PostCommentInput,
  type ProviderAccount,
  type ProviderAppConfig,
  type ProviderCallContext,
  type ProviderComment,
  ProviderError,
  type ProviderReplyBudget,
  type PublishMediaItem,
  type PublishRequest,
  type PublishResult,
} from '../provider.js';

type Stage = { stage: 'children'; children: string[]; text: string; opts: GraphParams } | { stage: 'container'; id: string };

const POLL_MS = 2_000;
const REPLY_WAIT_STEPS = 10;
const REPLY_WAIT_MS = 300;

function mediaParams(item: PublishMediaItem): GraphParams {
  return item.kind === 'video'
    ? { media_type: 'VIDEO', video_url: item.url, alt_text: item.altText }
    : { media_type: 'IMAGE', image_url: item.url, alt_text: item.altText };
}

export function threadsClient(config: ProviderAppConfig) {
  const platform = 'threads' as const;
  const graph = graphClient(platform, config.timeoutMs);
  const api = trimBase(config.apiBaseUrl);

  const createContainer = (ctx: ProviderCallContext, params: GraphParams) =>
    graph.post<{ id: string }>(`${api}/${ctx.externalAccountId}/threads`, ctx, params, true);

  async function status(ctx: ProviderCallContext, id: string): Promise<'FINISHED' | 'IN_PROGRESS'> {
    const s = await graph.get<{ status?: string; error_message?: string }>(`${api}/${id}`, ctx, { fields: 'status,error_message' });
    if (s.status === 'ERROR') {
      throw new ProviderError({
        platform,
        category: 'user_content',
        message: `container ${id} failed: ${s.error_message ?? 'ERROR'}`,
        providerResponse: s,
      });
    }
    if (s.status === 'EXPIRED')
      throw new ProviderError({
        platform,
        category: 'platform_rejected',
        message: `container ${id} expired`,
      });
    if (s.status === 'PUBLISHED') {
      throw new ProviderError({
        platform,
        category: 'unknown_outcome',
        message: `container ${id} is already published; its post id was not received`,
      });
    }
    return s.status === 'FINISHED' ? 'FINISHED' : 'IN_PROGRESS';
  }

  async function publishContainer(ctx: ProviderCallContext, id: string): Promise<PublishResult> {
    const post = await graph.post<{ id: string }>(`${api}/${ctx.externalAccountId}/threads_publish`, ctx, { creation_id: id });
    let url: string | null = null;
    try {
      url =
        (
          await graph.get<{ permalink?: string }>(`${api}/${post.id}`, ctx, {
            fields: 'permalink',
          })
        ).permalink ?? null;
    } catch {
      // the post exists; fetchPermalink can be retried later
    }
    return { status: 'published', providerPostId: post.id, url };
  }

  async function advance(ctx: ProviderCallContext, state: Stage): Promise<PublishResult> {
    let current = state;
    if (current.stage === 'children') {
      for (const child of current.children) {
        if ((await status(ctx, child)) !== 'FINISHED')
          return {
            status: 'processing',
            pollToken: encodePollToken(current),
            pollAfterMs: POLL_MS,
          };
      }
      const parent = await createContainer(ctx, {
        ...current.opts,
        media_type: 'CAROUSEL',
        children: current.children.join(','),
        text: current.text || undefined,
      });
      current = { stage: 'container', id: parent.id };
    }
    if ((await status(ctx, current.id)) !== 'FINISHED')
      return {
        status: 'processing',
        pollToken: encodePollToken(current),
        pollAfterMs: POLL_MS,
      };
    return publishContainer(ctx, current.id);
  }

  return {
    graph,
    api,
    async me(accessToken: string): Promise<ProviderAccount[]> {
      const me = await graph.get<Record<string, unknown>>(
        `${api}/me`,
        { accessToken },
        { fields: 'id,username,name,threads_profile_picture_url' },
      );
      return [
        {
          externalAccountId: String(me.id),
          displayName: String(me.name ?? me.username ?? me.id),
          handle: typeof me.username === 'string' ? me.username : null,
          avatarUrl: typeof me.threads_profile_picture_url === 'string' ? me.threads_profile_picture_url : null,
        },
      ];
    },

    async publish(ctx: ProviderCallContext, request: PublishRequest): Promise<PublishResult> {
      const s = request.settings;
      const opts: GraphParams = {
        reply_control: typeof s.replyControl === 'string' ? s.replyControl : undefined,
        topic_tag: typeof s.topicTag === 'string' ? s.topicTag : undefined,
      };
      if (request.media.length === 0) {
        if (!request.text)
          throw new ProviderError({
            platform,
            category: 'user_content',
            message: 'a Threads text post needs text',
          });
        const link = typeof s.linkAttachment === 'string' ? s.linkAttachment : undefined;
        const c = await createContainer(ctx, {
          ...opts,
          media_type: 'TEXT',
          text: request.text,
          link_attachment: link,
        });
        return advance(ctx, { stage: 'container', id: c.id });
      }
      if (request.media.length === 1) {
        const c = await createContainer(ctx, {
          ...opts,
          ...mediaParams(request.media[0]!),
          text: request.text || undefined,
        });
        return advance(ctx, { stage: 'container', id: c.id });
      }
      const children: string[] = [];
      for (const item of request.media)
        children.push(
          (
            await createContainer(ctx, {
              ...mediaParams(item),
              is_carousel_item: 'true',
            })
          ).id,
        );
      return advance(ctx, {
        stage: 'children',
        children,
        text: request.text,
        opts,
      });
    },

    pollPublish(ctx: ProviderCallContext, pollToken: string): Promise<PublishResult> {
      return advance(ctx, decodePollToken<Stage>(platform, pollToken));
    },

    async permalink(ctx: ProviderCallContext, id: string): Promise<string | null> {
      return (
        (
          await graph.get<{ permalink?: string }>(`${api}/${id}`, ctx, {
            fields: 'permalink',
          })
        ).permalink ?? null
      );
    },

    /** A reply is a TEXT container with reply_to_id, published like a post. */
    async reply(ctx: ProviderCallContext, input: PostCommentInput) {
      const c = await createContainer(ctx, {
        media_type: 'TEXT',
        text: input.text,
        reply_to_id: input.replyToCommentId ?? input.providerPostId,
      });
      for (let i = 0; (await status(ctx, c.id)) !== 'FINISHED'; i++) {
        if (i >= REPLY_WAIT_STEPS)
          throw new ProviderError({
            platform,
            category: 'transient',
            message: `reply container ${c.id} not ready`,
          });
        await new Promise((r) => setTimeout(r, REPLY_WAIT_MS));
      }
      const post = await graph.post<{ id: string }>(`${api}/${ctx.externalAccountId}/threads_publish`, ctx, { creation_id: c.id });
      return { providerCommentId: post.id };
    },

    async replies(ctx: ProviderCallContext, input: { providerPostId: string; limit: number; since?: string }) {
      // /conversation lists every reply at any depth (flat, each with replied_to), chronologically
      const data = await graphList(
        graph,
        `${api}/${input.providerPostId}/conversation`,
        ctx,
        {
          fields: 'id,text,username,permalink,timestamp,replied_to,is_reply_owned_by_me,hide_status,has_replies',
          reverse: 'false',
        },
        input.limit,
        // the edge has no since parameter: older replies are skipped while paging, so they do not use up limit
        sinceFilter(input.since, 'timestamp'),
      );
      return data.map((r): ProviderComment => {
        const parent = (r.replied_to as { id?: string } | undefined)?.id ?? null;
        return {
          providerCommentId: String(r.id),
          parentProviderCommentId: parent === input.providerPostId ? null : parent,
          body: String(r.text ?? ''),
          authorName: null,
          authorHandle: typeof r.username === 'string' ? r.username : null,
          authorId: r.is_reply_owned_by_me === true ? ctx.externalAccountId : null,
          hidden: typeof r.hide_status === 'string' ? r.hide_status === 'HIDDEN' : undefined,
          permalinkUrl: typeof r.permalink === 'string' ? r.permalink : null,
          providerCreatedAt: typeof r.timestamp === 'string' ? new Date(r.timestamp).toISOString() : null,
          metrics: {},
        };
      });
    },

    /** GET /{threads-user-id}/threads_publishing_limit: replies published in the last 24 h and the quota */
    async replyQuota(ctx: ProviderCallContext): Promise<ProviderReplyBudget> {
      const res = await graph.get<{
        data?: Array<{ reply_quota_usage?: number; reply_config?: { quota_total?: number; quota_duration?: number } }>;
      }>(`${api}/${ctx.externalAccountId}/threads_publishing_limit`, ctx, { fields: 'reply_quota_usage,reply_config' });
      const row = res.data?.[0];
      return {
        name: 'threads_replies',
        limit: row?.reply_config?.quota_total ?? 1000,
        used: row?.reply_quota_usage ?? 0,
        windowSeconds: row?.reply_config?.quota_duration ?? 86_400,
      };
    },

    async manageReply(ctx: ProviderCallContext, input: { providerCommentId: string; hidden: boolean }) {
      await graph.post(`${api}/${input.providerCommentId}/manage_reply`, ctx, { hide: input.hidden }, true);
    },

    async insights(ctx: ProviderCallContext, id: string) {
      const res = await graph.get<{ data?: InsightRow[] }>(`${api}/${id}/insights`, ctx, {
        metric: 'views,likes,replies,reposts,quotes,shares',
      });
      return {
        capturedAt: new Date().toISOString(),
        metrics: insightMetrics(res.data ?? []),
      };
    },

    async profile(ctx: ProviderCallContext): Promise<Record<string, unknown>> {
      const u = await graph.get<Record<string, unknown>>(`${api}/me`, ctx, {
        fields: 'id,username,name,threads_profile_picture_url,threads_biography',
      });
      return {
        externalAccountId: String(u.id),
        handle: u.username ?? null,
        displayName: u.name ?? u.username ?? null,
        avatarUrl: u.threads_profile_picture_url ?? null,
        biography: u.threads_biography ?? null,
      };
    },

    async lookupProfile(ctx: ProviderCallContext, username: string): Promise<Array<Record<string, unknown>>> {
      try {
        const p = await graph.get<Record<string, unknown>>(`${api}/profile_lookup`, ctx, { username });
        return [
          {
            handle: p.username ?? username,
            displayName: p.name ?? p.username ?? username,
            avatarUrl: p.profile_picture_url ?? null,
            biography: p.biography ?? null,
            followersCount: Number(p.follower_count ?? 0),
            verified: p.is_verified === true,
          },
        ];
      } catch (err) {
        const body = err instanceof ProviderError ? parseGraphError(err.providerResponse) : null;
        if (body && (body.code === 100 || body.code === 110) && err instanceof ProviderError && err.category === 'user_content') return [];
        throw err;
      }
    },
  };
}
