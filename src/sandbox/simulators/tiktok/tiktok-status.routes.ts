/**
 * Read endpoints of the TikTok simulator: Content Posting API status fetch (PROCESSING_UPLOAD ->
 * PUBLISH_COMPLETE or FAILED), and the Display API's video list (the creator's public videos, newest
 * first, `cursor` paging by create time in ms) and video query (share_url and metrics).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, authorize, jsonBody, ok, type SimContext, simulate } from './tiktok-http.js';
import type { TiktokSimVideo } from './tiktok-state.js';

/** The `fields` query parameter of the Display API reads: the video fields the caller asks for. */
function requestedFields(req: FastifyRequest): string[] {
  return String((req.query as Record<string, string>).fields ?? '')
    .split(',')
    .filter(Boolean);
}

/** A video's answer with only the fields asked for (unknown names are left out). */
function onlyFields(all: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]]));
}

export function registerTiktokStatusRoutes(app: FastifyInstance, ctx: SimContext): void {
  const { state } = ctx;
  /** The token's creator; a token of an account that is gone is invalid. */
  const creatorOf = (openId: string) => {
    const user = state.users.get(openId);
    if (!user) throw apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    return user;
  };

  app.post(
    '/v2/post/publish/status/fetch/',
    simulate(ctx, 'status', 'api', (req) => {
      const token = authorize(ctx, req);
      if (!token.scopes.includes('video.publish') && !token.scopes.includes('video.upload')) {
        throw apiError(401, 'scope_not_authorized', 'The user did not authorize video.publish or video.upload.');
      }
      const p = state.publishes.get(String(jsonBody(req).publish_id ?? ''));
      if (!p || p.openId !== token.openId) throw apiError(400, 'invalid_params', 'publish_id is invalid.');
      const status = state.statusOf(p);
      const data: Record<string, unknown> = {
        status,
        uploaded_bytes: p.receivedBytes,
        publicaly_available_post_id: [],
      };
      if (status === 'FAILED') data.fail_reason = p.failReason;
      // only publicly viewable posts are given their post id
      if (status === 'PUBLISH_COMPLETE' && p.privacyLevel !== 'SELF_ONLY') {
        // TikTok answers the post id as an int64 JSON number (list<int64>), beyond what a double holds exactly
        const answer = ok({ ...data, publicaly_available_post_id: ['@id'] });
        const text = JSON.stringify(answer.body).replace('"@id"', String(p.videoId));
        return { ...answer, headers: { 'content-type': 'application/json; charset=utf-8' }, body: text };
      }
      return ok(data);
    }),
  );

  app.post(
    '/v2/video/list/',
    simulate(ctx, 'video_list', 'api', (req) => {
      const token = authorize(ctx, req, 'video.list');
      const fields = requestedFields(req);
      const body = jsonBody(req);
      const max = body.max_count === undefined ? 10 : Number(body.max_count);
      if (!Number.isInteger(max) || max < 1 || max > 20) throw apiError(400, 'invalid_params', 'max_count must be 1-20.');
      const before = body.cursor === undefined ? Number.POSITIVE_INFINITY : Number(body.cursor);
      const user = creatorOf(token.openId);
      // a post exists once its processing ended, whether or not anyone fetched its status
      for (const p of state.publishes.values()) if (p.openId === token.openId) state.statusOf(p);
      // videos restored from a sandbox store written before createdAtMs existed carry createTime only
      const at = (v: TiktokSimVideo) => v.createdAtMs ?? v.createTime * 1000;
      const listed = [...state.videos.values()]
        .filter((v) => v.openId === token.openId && v.privacyLevel === 'PUBLIC_TO_EVERYONE' && at(v) < before)
        .sort((a, b) => at(b) - at(a) || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
      const page = listed.slice(0, max);
      const videos = page.map((v) => {
        const all: Record<string, unknown> = {
          id: v.id,
          title: v.title,
          video_description: v.title,
          create_time: v.createTime,
          share_url: `https://www.tiktok.com/@${user.username}/video/${v.id}`,
        };
        return onlyFields(all, fields);
      });
      const oldest = page.at(-1);
      return ok({ videos, cursor: oldest ? at(oldest) : 0, has_more: listed.length > page.length });
    }),
  );

  app.post(
    '/v2/video/query/',
    simulate(ctx, 'video_query', 'api', (req) => {
      const token = authorize(ctx, req, 'video.list');
      const fields = requestedFields(req);
      const filters = (jsonBody(req).filters ?? {}) as { video_ids?: unknown };
      const ids = Array.isArray(filters.video_ids) ? filters.video_ids.map(String) : [];
      if (ids.length === 0 || ids.length > 20) throw apiError(400, 'invalid_params', 'filters.video_ids needs 1-20 ids.');
      const user = creatorOf(token.openId);
      const videos = ids
        .map((id) => state.videos.get(id))
        .filter((v): v is TiktokSimVideo => v !== undefined && v.openId === token.openId)
        .map((v) => {
          const all: Record<string, unknown> = {
            id: v.id,
            title: v.title,
            create_time: v.createTime,
            share_url: `https://www.tiktok.com/@${user.username}/video/${v.id}`,
            view_count: v.viewCount,
            like_count: v.likeCount,
            comment_count: v.commentCount,
            share_count: v.shareCount,
          };
          return onlyFields(all, fields);
        });
      return ok({ videos, cursor: 0, has_more: false });
    }),
  );
}
