/**
 * YouTube Data API v3 read and comment methods of the simulator: channels.list (mine; snippet, status,
 * contentDetails with the uploads playlist), playlistItems.list (the uploads playlist, newest first,
 * pageToken paging), videos.list (status, processingDetails, statistics), commentThreads.insert/list,
 * comments.insert and videoCategories.list, with YouTube's list envelopes and error reasons.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type SimContext, sendApiError } from './google-http.js';
import { etag, type GoogleSimulatorState, makeComment, QUOTA_COST, SIM_VIDEO_CATEGORIES, type SimThread } from './google-state.js';
import { answerCall, chargeQuota, openApiCall } from './youtube-guard.js';

type Query = Record<string, string | undefined>;

function listResponse(kind: string, items: unknown[], perPage = items.length) {
  return {
    kind,
    etag: etag(`${kind}:${items.length}:${Date.now()}`),
    pageInfo: { totalResults: items.length, resultsPerPage: perPage },
    items,
  };
}

/** YouTube's uploads playlist id: the channel id with UC replaced by UU. */
function uploadsPlaylistOf(channelId: string): string {
  return `UU${channelId.slice(2)}`;
}

function parts(q: Query): Set<string> {
  return new Set(
    (q.part ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  );
}

/** The requested parts; null after answering 400 when the request names none. */
function requiredParts(q: Query, reply: FastifyReply): Set<string> | null {
  const wanted = parts(q);
  if (wanted.size > 0) return wanted;
  sendApiError(reply, 400, 'required', 'Required parameter: part', 'global');
  return null;
}

function threadResource(t: SimThread, withReplies: boolean) {
  const resource: Record<string, unknown> = {
    kind: 'youtube#commentThread',
    etag: etag(t.id),
    id: t.id,
    snippet: {
      channelId: t.channelId,
      videoId: t.videoId,
      topLevelComment: t.top,
      canReply: true,
      totalReplyCount: t.replies.length,
      isPublic: true,
    },
  };
  if (withReplies && t.replies.length > 0) resource.replies = { comments: t.replies };
  return resource;
}

function videoNotFound(reply: FastifyReply) {
  return sendApiError(
    reply,
    404,
    'videoNotFound',
    'The video identified by the videoId parameter could not be found.',
    'youtube.commentThread',
  );
}

export function registerYoutubeApiRoutes(app: FastifyInstance, state: GoogleSimulatorState, ctx: SimContext): void {
  app.get('/youtube/v3/channels', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'channels', request, reply, 'read', QUOTA_COST.list);
    if (!call) return reply;
    const q = request.query as Query;
    if (!q.part) return sendApiError(reply, 400, 'required', 'Required parameter: part', 'global');
    const mine = q.mine === 'true' ? state.channels.filter((c) => c.id === call.token.channelId) : [];
    const items = mine.map((c) => ({
      kind: 'youtube#channel',
      etag: etag(c.id),
      id: c.id,
      snippet: {
        title: c.title,
        description: '',
        customUrl: c.customUrl,
        publishedAt: '2020-01-01T00:00:00Z',
        thumbnails: { default: { url: c.thumbnailUrl, width: 88, height: 88 } },
        localized: { title: c.title, description: '' },
      },
      status: {
        privacyStatus: 'public',
        isLinked: true,
        longUploadsStatus: 'allowed',
        madeForKids: false,
      },
      contentDetails: { relatedPlaylists: { likes: '', uploads: uploadsPlaylistOf(c.id) } },
    }));
    return answerCall(request, reply, call, listResponse('youtube#channelListResponse', items, 5));
  });

  // the uploads playlist of a channel: every video it uploaded, newest first (private ones for the owner only)
  app.get('/youtube/v3/playlistItems', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'playlist_items', request, reply, 'read', QUOTA_COST.list);
    if (!call) return reply;
    const q = request.query as Query;
    const wanted = requiredParts(q, reply);
    if (!wanted) return reply;
    if (!q.playlistId && !q.id) return sendApiError(reply, 400, 'required', 'Required parameter: playlistId', 'global');
    const max = q.maxResults === undefined ? 5 : Number(q.maxResults);
    if (!Number.isInteger(max) || max < 0 || max > 50) {
      return sendApiError(reply, 400, 'invalidValue', "Invalid value for parameter 'maxResults'.", 'youtube.parameter');
    }
    const channel = state.channels.find((c) => uploadsPlaylistOf(c.id) === q.playlistId);
    if (!channel) {
      return sendApiError(
        reply,
        404,
        'playlistNotFound',
        "The playlist identified with the request's playlistId parameter cannot be found.",
        'youtube.playlistItem',
      );
    }
    // newest first; reversed insertion order first, so uploads within the same millisecond keep it too
    const videos = [...state.videos.values()]
      .reverse()
      .filter((v) => v.channelId === channel.id && (v.resource.status.privacyStatus !== 'private' || call.token.channelId === channel.id))
      .sort((a, b) => String(b.resource.snippet.publishedAt).localeCompare(String(a.resource.snippet.publishedAt)));
    const start = q.pageToken
      ? Number(
          Buffer.from(q.pageToken, 'base64url')
            .toString()
            .replace(/^page:/, ''),
        )
      : 0;
    if (!Number.isInteger(start) || start < 0) {
      return sendApiError(reply, 400, 'invalidPageToken', 'The request specifies an invalid page token.', 'youtube.parameter');
    }
    const page = videos.slice(start, start + max);
    const items = page.map((v, i) => {
      const r = v.resource;
      const item: Record<string, unknown> = { kind: 'youtube#playlistItem', etag: etag(`pl:${r.id}`), id: `pli_${r.id}` };
      if (wanted.has('snippet'))
        item.snippet = {
          publishedAt: r.snippet.publishedAt,
          channelId: channel.id,
          title: r.snippet.title,
          description: r.snippet.description,
          thumbnails: r.snippet.thumbnails,
          channelTitle: channel.title,
          playlistId: q.playlistId,
          position: start + i,
          resourceId: { kind: 'youtube#video', videoId: r.id },
          videoOwnerChannelTitle: channel.title,
          videoOwnerChannelId: channel.id,
        };
      if (wanted.has('contentDetails')) item.contentDetails = { videoId: r.id, videoPublishedAt: r.snippet.publishedAt };
      if (wanted.has('status')) item.status = { privacyStatus: r.status.privacyStatus };
      return item;
    });
    const body: Record<string, unknown> = { ...listResponse('youtube#playlistItemListResponse', items, max) };
    body.pageInfo = { totalResults: videos.length, resultsPerPage: max };
    if (start + max < videos.length) body.nextPageToken = Buffer.from(`page:${start + max}`).toString('base64url');
    if (start > 0) body.prevPageToken = Buffer.from(`page:${Math.max(0, start - max)}`).toString('base64url');
    return answerCall(request, reply, call, body);
  });

  app.get('/youtube/v3/videos', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'videos_list', request, reply, 'read', QUOTA_COST.list);
    if (!call) return reply;
    const q = request.query as Query;
    const wanted = requiredParts(q, reply);
    if (!wanted) return reply;
    const ids = (q.id ?? '').split(',').filter(Boolean);
    const items = [];
    for (const id of ids) {
      const video = state.videos.get(id);
      if (!video) continue;
      const r = video.resource;
      // someone else's private video is invisible
      if (r.status.privacyStatus === 'private' && video.channelId !== call.token.channelId) continue;
      if ((wanted.has('status') || wanted.has('processingDetails')) && video.readsUntilProcessed > 0) {
        video.readsUntilProcessed -= 1;
        if (video.readsUntilProcessed === 0) {
          r.status.uploadStatus = 'processed';
          r.processingDetails.processingStatus = 'succeeded';
        }
      }
      const item: Record<string, unknown> = {
        kind: r.kind,
        etag: r.etag,
        id: r.id,
      };
      for (const part of ['snippet', 'status', 'statistics', 'processingDetails'] as const) {
        if (wanted.has(part)) item[part] = r[part];
      }
      items.push(item);
    }
    return answerCall(request, reply, call, listResponse('youtube#videoListResponse', items));
  });

  app.post('/youtube/v3/commentThreads', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'comment_insert', request, reply, 'comment');
    if (!call) return reply;
    const snippet = ((request.body ?? {}) as { snippet?: Record<string, unknown> }).snippet ?? {};
    const videoId = String(snippet.videoId ?? '');
    const text = (snippet.topLevelComment as { snippet?: { textOriginal?: unknown } } | undefined)?.snippet?.textOriginal;
    const video = state.videos.get(videoId);
    if (!video) return videoNotFound(reply);
    if (typeof text !== 'string' || text.trim() === '' || [...text].length > 10_000) {
      return sendApiError(reply, 400, 'commentTextTooLong', 'The comment resource is empty or too long.', 'youtube.commentThread');
    }
    if (!chargeQuota(state, reply, QUOTA_COST.insertComment)) return reply;
    const channel = state.channel(call.token.channelId);
    const comment = makeComment(state.newId('comment'), {
      videoId,
      text,
      author: channel?.title ?? 'Channel',
      authorChannelId: call.token.channelId,
    });
    const thread: SimThread = {
      id: comment.id,
      videoId,
      channelId: video.channelId,
      top: comment,
      replies: [],
    };
    state.threads.set(thread.id, thread);
    ctx.ledger.comments.push({
      postId: videoId,
      commentId: comment.id,
      text,
      at: Date.now(),
    });
    video.resource.statistics.commentCount = String(Number(video.resource.statistics.commentCount) + 1);
    return answerCall(request, reply, call, threadResource(thread, false));
  });

  app.post('/youtube/v3/comments', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'comment_insert', request, reply, 'comment');
    if (!call) return reply;
    const snippet = ((request.body ?? {}) as { snippet?: Record<string, unknown> }).snippet ?? {};
    const parentId = String(snippet.parentId ?? '');
    const thread = state.threads.get(parentId);
    if (!thread)
      return sendApiError(reply, 404, 'parentCommentNotFound', 'The specified parent comment could not be found.', 'youtube.comment');
    const text = snippet.textOriginal;
    if (typeof text !== 'string' || text.trim() === '') {
      return sendApiError(reply, 400, 'commentTextRequired', 'The comment resource must contain a textOriginal.', 'youtube.comment');
    }
    if (!chargeQuota(state, reply, QUOTA_COST.insertComment)) return reply;
    const channel = state.channel(call.token.channelId);
    const reply_ = makeComment(`${parentId}.${state.newId('comment').slice(3, 25)}`, {
      videoId: thread.videoId,
      text,
      author: channel?.title ?? 'Channel',
      authorChannelId: call.token.channelId,
      parentId,
    });
    thread.replies.push(reply_);
    ctx.ledger.comments.push({
      postId: thread.videoId,
      commentId: reply_.id,
      text,
      at: Date.now(),
    });
    return answerCall(request, reply, call, reply_);
  });

  app.get('/youtube/v3/commentThreads', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'comments_list', request, reply, 'read', QUOTA_COST.list);
    if (!call) return reply;
    const q = request.query as Query;
    if (!q.videoId) return sendApiError(reply, 400, 'missingRequiredParameter', 'No filter selected.', 'youtube.parameter');
    if (!state.videos.has(q.videoId)) return videoNotFound(reply);
    const max = Math.min(100, Math.max(1, Number(q.maxResults ?? 20) || 20));
    const threads = [...state.threads.values()]
      .filter((t) => t.videoId === q.videoId)
      .reverse()
      .slice(0, max)
      .map((t) => threadResource(t, parts(q).has('replies')));
    return answerCall(request, reply, call, listResponse('youtube#commentThreadListResponse', threads, max));
  });

  app.get('/youtube/v3/videoCategories', async (request, reply) => {
    const call = await openApiCall(state, ctx, 'categories', request, reply, 'read', QUOTA_COST.list);
    if (!call) return reply;
    const q = request.query as Query;
    if (!q.regionCode && !q.id) return sendApiError(reply, 400, 'missingRequiredParameter', 'No filter selected.', 'youtube.parameter');
    const items = SIM_VIDEO_CATEGORIES.map(([id, title, assignable]) => ({
      kind: 'youtube#videoCategory',
      etag: etag(`cat${id}`),
      id,
      snippet: { title, assignable, channelId: 'UCBR8-60-B28hp2BmDPdntcQ' },
    }));
    return answerCall(request, reply, call, listResponse('youtube#videoCategoryListResponse', items));
  });
}
