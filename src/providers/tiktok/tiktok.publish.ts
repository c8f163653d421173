/**
 * The TikTok publish step: media composition checks, checks against the creator's live creator_info (as the
 * Direct Post UX guidelines require), then Direct Post video init + FILE_UPLOAD chunks, or a photo post init
 * with PULL_FROM_URL. https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
 */
import { type ProviderCallContext, ProviderError, type PublishRequest } from '../provider.js';
import { type TiktokClient, type TiktokCreatorInfo, tiktokError } from './tiktok.client.js';
import { planChunks, uploadVideoChunks } from './tiktok.upload.js';

export function userContent(message: string, providerCode: string): ProviderError {
  return new ProviderError({
    platform: 'tiktok',
    category: 'user_content',
    message,
    providerCode,
  });
}

function bool(settings: Record<string, unknown>, key: string): boolean {
  return settings[key] === true;
}

/** One video, or 1-35 photos; nothing else. */
export function checkTiktokMedia(request: PublishRequest): void {
  const videos = request.media.filter((m) => m.kind === 'video');
  const images = request.media.filter((m) => m.kind === 'image');
  if (request.media.length === 0) {
    throw userContent('a TikTok post needs one video or 1-35 photos', 'invalid_params');
  }
  if (videos.length > 0 && (videos.length > 1 || images.length > 0)) {
    throw userContent('a TikTok post carries exactly one video, or photos only', 'invalid_params');
  }
  if (request.media.some((m) => m.kind === 'gif') || images.length > 35) {
    throw userContent('TikTok photo posts take 1-35 JPEG or WebP images', 'invalid_params');
  }
}

/** Checks the target settings against the creator's live options, as the Direct Post UX guidelines require. */
export function checkAgainstCreator(request: PublishRequest, creator: TiktokCreatorInfo): string {
  const privacy = request.settings.privacy_level;
  if (typeof privacy !== 'string' || !creator.privacy_level_options.includes(privacy)) {
    throw userContent(
      `privacy_level ${String(privacy)} is not offered to this creator (${creator.privacy_level_options.join(', ')})`,
      'privacy_level_option_mismatch',
    );
  }
  if (bool(request.settings, 'brand_content_toggle') && privacy === 'SELF_ONLY') {
    throw userContent('branded content cannot be posted with SELF_ONLY visibility', 'invalid_params');
  }
  const video = request.media.find((m) => m.kind === 'video');
  if (video?.durationSeconds !== undefined && video.durationSeconds > creator.max_video_post_duration_sec) {
    throw userContent(
      `video lasts ${video.durationSeconds}s, this creator may post at most ${creator.max_video_post_duration_sec}s`,
      'duration_check_failed',
    );
  }
  return privacy;
}

export async function publishVideo(
  client: TiktokClient,
  ctx: ProviderCallContext,
  request: PublishRequest,
  creator: TiktokCreatorInfo,
  privacy: string,
  chunkSizeBytes?: number,
): Promise<string> {
  const video = request.media[0];
  if (!video) throw userContent('no video to upload', 'invalid_params');
  const s = request.settings;
  const plan = planChunks(video.bytes, chunkSizeBytes);
  const postInfo: Record<string, unknown> = {
    title: request.text,
    privacy_level: privacy,
    // a creator-level "No one" setting cannot be overridden by the post
    disable_comment: bool(s, 'disable_comment') || creator.comment_disabled,
    disable_duet: bool(s, 'disable_duet') || creator.duet_disabled,
    disable_stitch: bool(s, 'disable_stitch') || creator.stitch_disabled,
    brand_content_toggle: bool(s, 'brand_content_toggle'),
    brand_organic_toggle: bool(s, 'brand_organic_toggle'),
  };
  if (typeof s.video_cover_timestamp_ms === 'number') postInfo.video_cover_timestamp_ms = s.video_cover_timestamp_ms;
  if (typeof s.is_aigc === 'boolean') postInfo.is_aigc = s.is_aigc;
  const init = await client.initVideo(
    ctx.accessToken,
    {
      post_info: postInfo,
      source_info: {
        source: 'FILE_UPLOAD',
        video_size: plan.videoSize,
        chunk_size: plan.chunkSize,
        total_chunk_count: plan.totalChunkCount,
      },
    },
    ctx.signal,
  );
  if (!init.upload_url)
    throw tiktokError({
      code: 'invalid_response',
      message: 'init answered without upload_url',
      httpStatus: 200,
    });
  await uploadVideoChunks({
    client,
    uploadUrl: init.upload_url,
    plan,
    mimeType: video.mimeType,
    source: await video.open(),
    signal: ctx.signal,
  });
  return init.publish_id;
}

export async function publishPhotos(
  client: TiktokClient,
  ctx: ProviderCallContext,
  request: PublishRequest,
  creator: TiktokCreatorInfo,
  privacy: string,
): Promise<string> {
  const s = request.settings;
  const title = typeof s.title === 'string' ? s.title : '';
  const init = await client.initContent(
    ctx.accessToken,
    {
      post_info: {
        title,
        description: request.text,
        privacy_level: privacy,
        disable_comment: bool(s, 'disable_comment') || creator.comment_disabled,
        auto_add_music: bool(s, 'auto_add_music'),
        brand_content_toggle: bool(s, 'brand_content_toggle'),
        brand_organic_toggle: bool(s, 'brand_organic_toggle'),
      },
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: 0,
        photo_images: request.media.map((m) => m.url),
      },
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
    },
    ctx.signal,
  );
  return init.publish_id;
}
