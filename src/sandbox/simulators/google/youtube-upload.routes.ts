/**
 * videos.insert through the resumable upload protocol: POST the metadata (uploadType=resumable) and
 * receive the session URI in Location; PUT the bytes to it and receive the video resource. The
 * metadata is validated as YouTube does (title, description, category, privacy, tags).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { beginOperation, dropConnection, publicBase, type SimContext, sendApiError } from './google-http.js';
import { etag, type GoogleSimulatorState, QUOTA_COST, SIM_VIDEO_CATEGORIES, type SimVideo } from './google-state.js';
import { chargeQuota, requireToken } from './youtube-guard.js';

const PRIVACY = ['public', 'unlisted', 'private'];
const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;

function invalid(reply: FastifyReply, reason: string, message: string, location: string) {
  return reply.code(400).send({
    error: {
      code: 400,
      message,
      errors: [
        {
          message,
          domain: 'youtube.video',
          reason,
          location,
          locationType: 'other',
        },
      ],
      status: 'INVALID_ARGUMENT',
    },
  });
}

/** The first metadata problem YouTube would report, or null. */
function checkMetadata(reply: FastifyReply, body: Record<string, unknown>): boolean {
  const snippet = (body.snippet ?? {}) as Record<string, unknown>;
  const status = (body.status ?? {}) as Record<string, unknown>;
  const title = typeof snippet.title === 'string' ? snippet.title : '';
  if (title.trim() === '' || [...title].length > 100 || /[<>]/.test(title)) {
    invalid(reply, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.', 'body.snippet.title');
    return false;
  }
  const description = typeof snippet.description === 'string' ? snippet.description : '';
  if (Buffer.byteLength(description, 'utf8') > 5000 || /[<>]/.test(description)) {
    invalid(reply, 'invalidDescription', 'The request metadata specifies an invalid video description.', 'body.snippet.description');
    return false;
  }
  if (snippet.categoryId !== undefined && !SIM_VIDEO_CATEGORIES.some(([id, , ok]) => ok && id === snippet.categoryId)) {
    invalid(reply, 'invalidCategoryId', 'The snippet.categoryId property specifies an invalid category ID.', 'body.snippet.categoryId');
    return false;
  }
  const tags = Array.isArray(snippet.tags) ? (snippet.tags as unknown[]).map(String) : [];
  if (tags.join(',').length > 500) {
    invalid(reply, 'invalidTags', 'The request metadata specifies invalid video keywords.', 'body.snippet.tags');
    return false;
  }
  if (status.privacyStatus !== undefined && !PRIVACY.includes(String(status.privacyStatus))) {
    invalid(reply, 'invalidVideoMetadata', 'The request metadata is invalid.', 'body.status.privacyStatus');
    return false;
  }
  return true;
}

export function registerYoutubeUploadRoutes(app: FastifyInstance, state: GoogleSimulatorState, ctx: SimContext): void {
  app.post('/upload/youtube/v3/videos', async (request, reply) => {
    const begun = await beginOperation(ctx, 'upload_init', request, reply, 'api');
    if (begun === 'answered') return reply;
    const token = requireToken(state, request, reply, 'upload');
    if (!token) return reply;
    const q = request.query as Record<string, string | undefined>;
    if (q.uploadType !== 'resumable') {
      return sendApiError(reply, 400, 'invalidParameter', 'This simulator accepts uploadType=resumable only.', 'global');
    }
    if (!q.part) return sendApiError(reply, 400, 'required', 'Required parameter: part', 'global');
    const channel = state.channel(token.channelId);
    // a Google account that never created a YouTube channel
    if (!channel) {
      return sendApiError(reply, 401, 'youtubeSignupRequired', 'The Google account has no YouTube channel.', 'youtube.header');
    }
    if (channel.uploadsForbidden) {
      return sendApiError(reply, 403, 'forbidden', 'The user is not permitted to upload videos to this channel.', 'youtube.video');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (!checkMetadata(reply, body)) return reply;
    if (!chargeQuota(state, reply, QUOTA_COST.insertVideo)) return reply;
    const length = Number(request.headers['x-upload-content-length']);
    const uploadId = state.newId('upload');
    state.uploads.set(uploadId, {
      channelId: channel.id,
      metadata: {
        snippet: (body.snippet ?? {}) as Record<string, unknown>,
        status: (body.status ?? {}) as Record<string, unknown>,
      },
      expectedLength: Number.isFinite(length) && length > 0 ? length : null,
      contentType: String(request.headers['x-upload-content-type'] ?? 'video/*'),
      videoId: null,
    });
    if (begun.loseAnswer) return dropConnection(request, reply);
    const location = `${publicBase(request, app.prefix)}/upload/youtube/v3/videos?${new URLSearchParams({ uploadType: 'resumable', part: q.part, upload_id: uploadId })}`;
    return reply.code(200).header('location', location).header('x-guploader-uploadid', uploadId).send();
  });

  app.put('/upload/youtube/v3/videos', { bodyLimit: MAX_UPLOAD_BYTES }, async (request, reply) => {
    const begun = await beginOperation(ctx, 'publish', request, reply, 'api');
    if (begun === 'answered') return reply;
    const token = requireToken(state, request, reply, 'upload');
    if (!token) return reply;
    const uploadId = (request.query as Record<string, string | undefined>).upload_id ?? '';
    const session = state.uploads.get(uploadId);
    if (!session || session.channelId !== token.channelId) {
      return sendApiError(reply, 404, 'notFound', 'The upload session was not found.', 'global');
    }
    const existing = session.videoId ? state.videos.get(session.videoId) : undefined;
    if (existing) return reply.code(200).send(existing.resource);
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (bytes.length === 0 || (session.expectedLength !== null && bytes.length < session.expectedLength)) {
      // the protocol's "Resume Incomplete": nothing (or part) of the file arrived
      if (bytes.length > 0) reply.header('range', `bytes=0-${bytes.length - 1}`);
      return reply.code(308).send();
    }
    const channel = state.channel(session.channelId);
    const id = state.newId('video');
    const processed = state.processingReads <= 0;
    const now = new Date().toISOString();
    const { snippet, status } = session.metadata;
    const video: SimVideo = {
      channelId: session.channelId,
      readsUntilProcessed: state.processingReads,
      bytes: bytes.length,
      resource: {
        kind: 'youtube#video',
        etag: etag(id),
        id,
        snippet: {
          publishedAt: now,
          channelId: session.channelId,
          title: snippet.title,
          description: snippet.description ?? '',
          thumbnails: {
            default: {
              url: `https://i.ytimg.example/vi/${id}/default.jpg`,
              width: 120,
              height: 90,
            },
          },
          channelTitle: channel?.title ?? '',
          tags: snippet.tags,
          categoryId: snippet.categoryId ?? '22',
          liveBroadcastContent: 'none',
        },
        status: {
          uploadStatus: processed ? 'processed' : 'uploaded',
          privacyStatus: status.privacyStatus ?? 'public',
          license: 'youtube',
          embeddable: true,
          publicStatsViewable: true,
          madeForKids: status.selfDeclaredMadeForKids === true,
          selfDeclaredMadeForKids: status.selfDeclaredMadeForKids === true,
        },
        statistics: {
          viewCount: '0',
          likeCount: '0',
          favoriteCount: '0',
          commentCount: '0',
        },
        processingDetails: {
          processingStatus: processed ? 'succeeded' : 'processing',
        },
      },
    };
    state.videos.set(id, video);
    session.videoId = id;
    ctx.ledger.posts.push({
      platform: 'youtube',
      accountId: session.channelId,
      postId: id,
      text: String(snippet.description ?? ''),
      mediaCount: 1,
      at: Date.now(),
    });
    if (begun.loseAnswer) return dropConnection(request, reply);
    const { processingDetails: _hidden, ...answer } = video.resource;
    return reply.code(200).send(answer);
  });
}
