/**
 * TikTok capability and validation rules, from the Content Posting API docs (re-checked 2026-11):
 * - https://developers.tiktok.com/doc/content-posting-api-reference-direct-post (post_info fields, video
 *   caption `title` at most 2200 UTF-16 runes: counted in UTF-16 code units, so an emoji counts 2)
 * - https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide (chunk rules, video/photo restrictions)
 * - https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info (privacy options, max duration)
 * - https://developers.tiktok.com/doc/content-posting-api-reference-photo-post (photo posts: 1-35 images, title 90, description 4000)
 * The 3-second minimum video length is TikTok's in-app minimum; the API pages state only the maximum
 * (creator_info.max_video_post_duration_sec, at most 10 minutes). Boundary tests: test/publishing/platform-limits.test.ts.
 */
import type { ProviderCapability, ProviderValidationRules } from '../provider.js';
import type { PlatformApiVersion } from '../shared/api-version.js';

/** TikTok API version: the path segment of the API base URL (open.tiktokapis.com/v2). */
const TIKTOK_API_VERSION = 'v2';

/** The API version the adapter calls and the description it was checked against (contracts/tiktok). */
export const TIKTOK_API: PlatformApiVersion = {
  version: `TikTok API ${TIKTOK_API_VERSION}`,
  contract: 'tiktok',
  descriptionVersion: 'v2 (checked 2026-11-28)',
  descriptionDate: '2026-11-28',
  reference: 'https://developers.tiktok.com/doc/overview',
};

export const TIKTOK_ENDPOINTS = {
  apiBaseUrl: `https://open.tiktokapis.com/${TIKTOK_API_VERSION}`,
  authBaseUrl: 'https://www.tiktok.com',
  uploadBaseUrl: 'https://open-upload.tiktokapis.com',
};

const TIKTOK_PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'] as const;

export const TIKTOK_PRIVACY_LABELS: Record<string, string> = {
  PUBLIC_TO_EVERYONE: 'Everyone',
  MUTUAL_FOLLOW_FRIENDS: 'Friends',
  FOLLOWER_OF_CREATOR: 'Followers',
  SELF_ONLY: 'Only me',
};

const MB = 1024 * 1024;

/** Media transfer guide: chunks of 5-64 MB, last chunk up to 128 MB, 1-1000 chunks. */
export const TIKTOK_CHUNK_LIMITS = {
  minChunkBytes: 5 * MB,
  maxChunkBytes: 64 * MB,
  maxFinalChunkBytes: 128 * MB,
  maxChunks: 1000,
  defaultChunkBytes: 10 * MB,
} as const;

/** Login Kit scopes: user.info.basic for the account, video.publish for Direct Post, video.list for metrics. */
const TIKTOK_REQUIRED_SCOPES = ['user.info.basic', 'video.publish'];
export const TIKTOK_DEFAULT_SCOPES = ['user.info.basic', 'user.info.profile', 'video.publish', 'video.list'];

export const TIKTOK_CAPABILITY: ProviderCapability = {
  platform: 'tiktok',
  displayName: 'TikTok',
  requiredScopes: TIKTOK_REQUIRED_SCOPES,
  mediaRule: {
    allowedKinds: ['video', 'image'],
    minItems: 1,
    maxItems: 35,
    notes: [
      'One video, or a photo post of 1-35 images; videos and photos cannot be mixed.',
      'Video: MP4 (recommended), WebM or MOV, up to 4 GB, 23-60 fps, 360-4096 px per side.',
      "Video duration may not exceed the creator's max_video_post_duration_sec from creator_info.",
      'Photo: JPEG or WebP, up to 20 MB each, fetched by TikTok from a verified URL prefix.',
      'Content posted by unaudited API clients is restricted to SELF_ONLY viewing.',
    ],
    maxImageBytes: 20 * MB,
    maxVideoBytes: 4 * 1024 * MB,
    minVideoDurationSeconds: 3,
    maxVideoDurationSeconds: 600,
    dynamicMaxVideoDurationSetting: 'max_video_post_duration_sec',
  },
  supportsScheduling: true,
  supportsComments: false,
  supportsAnalytics: true,
  supportsDelete: false,
  supportsUpdate: false,
  settingsFields: [
    'privacy_level',
    'disable_comment',
    'disable_duet',
    'disable_stitch',
    'brand_content_toggle',
    'brand_organic_toggle',
    'video_cover_timestamp_ms',
    'is_aigc',
    'title',
    'auto_add_music',
  ],
  settingRules: [
    {
      field: 'privacy_level',
      label: 'Who can view this post',
      valueType: 'string',
      required: true,
      allowedValues: [...TIKTOK_PRIVACY_LEVELS],
    },
    {
      field: 'disable_comment',
      label: 'Turn off comments',
      valueType: 'boolean',
      required: true,
    },
    {
      field: 'disable_duet',
      label: 'Turn off Duet',
      valueType: 'boolean',
      required: true,
    },
    {
      field: 'disable_stitch',
      label: 'Turn off Stitch',
      valueType: 'boolean',
      required: true,
    },
    {
      field: 'brand_content_toggle',
      label: 'Branded content (paid partnership)',
      valueType: 'boolean',
      required: true,
    },
    {
      field: 'brand_organic_toggle',
      label: 'Your brand (promotional content)',
      valueType: 'boolean',
      required: true,
    },
    {
      field: 'video_cover_timestamp_ms',
      label: 'Cover frame (ms)',
      valueType: 'number',
      required: false,
    },
    {
      field: 'is_aigc',
      label: 'AI-generated content',
      valueType: 'boolean',
      required: false,
    },
    {
      field: 'title',
      label: 'Photo post title',
      valueType: 'string',
      required: false,
    },
    {
      field: 'auto_add_music',
      label: 'Add recommended music (photos)',
      valueType: 'boolean',
      required: false,
    },
  ],
  toolNames: ['privacyOptions'],
  plugNames: [],
  // Direct Post init is limited to 6 requests per minute per user token, status fetch to 30.
  rateLimitPolicy: 'strict',
  maxTextLength: 2200,
};

export const TIKTOK_VALIDATION_RULES: ProviderValidationRules = {
  textCounting: 'utf16_units',
  textOptional: true,
  mediaRequired: true,
  allowMixedKinds: false,
  extra: {
    maxPhotoCount: 35,
    maxVideos: 1,
    photoTitleMaxLength: 90,
    photoDescriptionMaxLength: 4000,
    minVideoFrameRate: 23,
    maxVideoFrameRate: 60,
    minVideoSidePixels: 360,
    maxVideoSidePixels: 4096,
    brandedContentNotPrivate: true,
  },
};
