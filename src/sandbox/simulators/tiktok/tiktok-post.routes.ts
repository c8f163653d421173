/**
 * Content Posting API endpoints of the TikTok simulator: creator_info, Direct Post video init (FILE_UPLOAD)
 * with chunked PUT transfer, photo init (PULL_FROM_URL), status fetch, and video query.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, authorize, jsonBody, ok, originOf, SimAnswer, type SimContext, simulate } from './tiktok-http.js';
import { numericId, randomId, type TiktokSimPublish } from './tiktok-state.js';

const MB = 1024 * 1024;
const CAPTION_MAX = 2200;

function validateChunks(size: number, chunk: number, count: number): string | null {
  if (!Number.isInteger(size) || size <= 0) return 'video_size must be a positive integer';
  if (!Number.isInteger(chunk) || !Number.isInteger(count) || count < 1 || count > 1000) return 'invalid chunk parameters';
  if (size < 5 * MB) return chunk === size && count === 1 ? null : 'videos under 5 MB must be uploaded as one chunk of the full size';
  if (size <= 64 * MB && chunk === size && count === 1) return null;
  if (chunk < 5 * MB || chunk > 64 * MB) return 'chunk_size must be between 5 MB and 64 MB';
  if (count !== Math.floor(size / chunk)) return 'total_chunk_count must equal floor(video_size / chunk_size)';
  if (size - chunk * (count - 1) > 128 * MB) return 'the final chunk may not exceed 128 MB';
  return null;
}

export function registerTiktokPostRoutes(app: FastifyInstance, ctx: SimContext, prefix: string): void {
  const { state, ledger } = ctx;
  /** What both publish inits read first: the token (video.publish), the body, its post_info and source_info. */
  const publishInit = (req: FastifyRequest) => {
    const token = authorize(ctx, req, 'video.publish');
    const body = jsonBody(req);
    const postInfo = (body.post_info ?? {}) as Record<string, unknown>;
    const source = (body.source_info ?? {}) as Record<string, unknown>;
    return { token, body, postInfo, source };
  };

  function creatorInfo(openId: string) {
    const user = state.users.get(openId);
    if (!user) throw apiError(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
    return user;
  }

  /** Checks shared by video and photo init: rate window, daily cap, audit status, privacy, caption. */
  function checkPostInfo(accessToken: string, openId: string, postInfo: Record<string, unknown>, caption: string) {
    if (!state.allowInit(accessToken)) {
      throw apiError(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
    }
    const user = creatorInfo(openId);
    const privacy = String(postInfo.privacy_level ?? '');
    if (!user.privacyLevelOptions.includes(privacy)) {
      throw apiError(400, 'privacy_level_option_mismatch', 'privacy_level is not one of the creator privacy_level_options.');
    }
    if (state.unaudited && privacy !== 'SELF_ONLY') {
      throw apiError(
        403,
        'unaudited_client_can_only_post_to_private_accounts',
        'Unaudited clients can only post to private accounts with SELF_ONLY visibility.',
      );
    }
    if (state.postsInLastDay(openId) >= state.dailyPostCap) {
      throw apiError(403, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.');
    }
    if ([...caption].length > CAPTION_MAX) throw apiError(400, 'invalid_params', `title exceeds ${CAPTION_MAX} characters.`);
    if (postInfo.brand_content_toggle === true && privacy === 'SELF_ONLY') {
      throw apiError(400, 'invalid_params', 'Branded content cannot be private.');
    }
    return privacy;
  }

  function newPublish(openId: string, kind: 'video' | 'photo', title: string, privacy: string): TiktokSimPublish {
    const p: TiktokSimPublish = {
      publishId: `v_pub_file~v2-1.${numericId()}`,
      openId,
      kind,
      title,
      privacyLevel: privacy,
      videoSize: 0,
      chunkSize: 0,
      totalChunkCount: 0,
      uploadToken: randomId(16),
      receivedBytes: 0,
      receivedChunks: 0,
      mediaCount: 1,
      completeAt: null,
      failReason: null,
      videoId: null,
    };
    state.publishes.set(p.publishId, p);
    return p;
  }

  function recordPost(p: TiktokSimPublish) {
    state.completeUpload(p);
    ledger.posts.push({
      platform: 'tiktok',
      accountId: p.openId,
      postId: p.publishId,
      text: p.title,
      mediaCount: p.mediaCount,
      at: Date.now(),
    });
  }

  app.post(
    '/v2/post/publish/creator_info/query/',
    simulate(ctx, 'creator_info', 'api', (req) => {
      const token = authorize(ctx, req, 'video.publish');
      const u = creatorInfo(token.openId);
      return ok({
        creator_avatar_url: u.avatarUrl,
        creator_username: u.username,
        creator_nickname: u.displayName,
        privacy_level_options: u.privacyLevelOptions,
        comment_disabled: u.commentDisabled,
        duet_disabled: u.duetDisabled,
        stitch_disabled: u.stitchDisabled,
        max_video_post_duration_sec: u.maxVideoPostDurationSec,
      });
    }),
  );

  app.post(
    '/v2/post/publish/video/init/',
    simulate(ctx, 'publish', 'api', (req) => {
      const { token, postInfo, source } = publishInit(req);
      const title = typeof postInfo.title === 'string' ? postInfo.title : '';
      const privacy = checkPostInfo(token.accessToken, token.openId, postInfo, title);
      if (source.source !== 'FILE_UPLOAD') throw apiError(400, 'invalid_params', 'Only FILE_UPLOAD is simulated for videos.');
      const size = Number(source.video_size);
      const chunk = Number(source.chunk_size);
      const count = Number(source.total_chunk_count);
      const problem = validateChunks(size, chunk, count);
      if (problem) throw apiError(400, 'invalid_params', problem);
      const p = newPublish(token.openId, 'video', title, privacy);
      Object.assign(p, {
        videoSize: size,
        chunkSize: chunk,
        totalChunkCount: count,
      });
      const uploadUrl = `${originOf(ctx, req)}${prefix}/upload/video/?upload_id=${encodeURIComponent(p.publishId)}&upload_token=${p.uploadToken}`;
      return ok({ publish_id: p.publishId, upload_url: uploadUrl });
    }),
  );

  app.post(
    '/v2/post/publish/content/init/',
    simulate(ctx, 'publish', 'api', (req) => {
      const { token, body, postInfo, source } = publishInit(req);
      const description = typeof postInfo.description === 'string' ? postInfo.description : '';
      if (typeof postInfo.title === 'string' && [...postInfo.title].length > 90) {
        throw apiError(400, 'invalid_params', 'Photo title exceeds 90 characters.');
      }
      if ([...description].length > 4000) throw apiError(400, 'invalid_params', 'description exceeds 4000 characters.');
      const privacy = checkPostInfo(token.accessToken, token.openId, postInfo, '');
      const images = Array.isArray(source.photo_images) ? source.photo_images : [];
      if (body.media_type !== 'PHOTO' || source.source !== 'PULL_FROM_URL' || images.length < 1 || images.length > 35) {
        throw apiError(400, 'invalid_params', 'Photo posts need media_type PHOTO, PULL_FROM_URL and 1-35 photo_images.');
      }
      const p = newPublish(token.openId, 'photo', description, privacy);
      p.mediaCount = images.length;
      // TikTok pulls the photos itself: the post exists from here on
      recordPost(p);
      return ok({ publish_id: p.publishId });
    }),
  );

  app.put(
    '/upload/video/',
    simulate(ctx, 'upload', 'api', (req) => {
      const q = req.query as Record<string, string | undefined>;
      const p = state.publishes.get(q.upload_id ?? '');
      if (!p || p.uploadToken !== q.upload_token || p.kind !== 'video') throw apiError(404, 'invalid_params', 'Upload session not found.');
      if (p.completeAt !== null) throw apiError(400, 'invalid_params', 'The upload is already complete.');
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
      if (!range) throw apiError(400, 'invalid_params', 'Content-Range is required.');
      const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
      const isFinal = p.receivedChunks === p.totalChunkCount - 1;
      const expectedLength = isFinal ? p.videoSize - p.receivedBytes : p.chunkSize;
      if (total !== p.videoSize || first !== p.receivedBytes || last - first + 1 !== bytes.length || bytes.length !== expectedLength) {
        throw new SimAnswer({
          status: 416,
          body: {
            data: {},
            error: {
              code: 'invalid_file_upload',
              message: 'Chunk does not match the declared chunk layout.',
              log_id: randomId(8),
            },
          },
        });
      }
      p.receivedBytes += bytes.length;
      p.receivedChunks += 1;
      if (!isFinal)
        return {
          status: 206,
          headers: {
            'content-range': `bytes 0-${p.receivedBytes - 1}/${p.videoSize}`,
          },
        };
      recordPost(p);
      return { status: 201 };
    }),
  );
}
