/**
 * X capability and validation rules, from the X API v2 docs (re-checked 2026-11; boundary tests in
 * test/publishing/platform-limits.test.ts):
 * - https://docs.x.com/x-api/posts/manage-tweets/api-reference/post-tweets (text, media.media_ids up to 4, reply, quote, community)
 * - https://docs.x.com/x-api/media/quickstart/media-upload-chunked (initialize, append, finalize, status)
 * - https://developer.x.com/en/docs/x-api/v1/media/upload-media/uploading-media/media-best-practices
 *   (image 5 MB, GIF 15 MB, video 512 MB, 0.5-140 s; 4 images or 1 GIF or 1 video)
 * - https://docs.x.com/resources/fundamentals/counting-characters (280 weighted characters)
 */
import type { ProviderCapability, ProviderValidationRules } from '../provider.js';
import type { PlatformApiVersion } from '../shared/api-version.js';

/** Production endpoints; the API and upload URLs carry the version path (the adapter's paths are relative to it). */
export const X_ENDPOINTS = {
  apiBaseUrl: 'https://api.x.com/2',
  /** the consent page, /i/oauth2/authorize */
  authBaseUrl: 'https://x.com',
  /** media upload (POST /2/media/upload, /initialize, /{id}/append, /{id}/finalize) lives on the API host */
  uploadBaseUrl: 'https://api.x.com/2',
} as const;

/** The API version the adapter calls and the published description it was checked against (contracts/x). */
export const X_API: PlatformApiVersion = {
  version: 'X API v2',
  contract: 'x',
  descriptionVersion: '2.167',
  descriptionDate: '2026-07-25',
  reference: 'https://docs.x.com/x-api/introduction',
};

const MB = 1024 * 1024;

export const X_MEDIA_LIMITS = {
  maxImageBytes: 5 * MB,
  maxGifBytes: 15 * MB,
  maxVideoBytes: 512 * MB,
  /** appended segments (POST /2/media/upload/{id}/append) may not exceed 5 MB; 4 MB leaves room for the multipart envelope */
  appendChunkBytes: 4 * MB,
} as const;

/** tweet.moderate.write: hiding replies in the channel's own conversations (PUT /2/tweets/:id/hidden) */
export const X_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'offline.access', 'media.write', 'tweet.moderate.write'];

const X_REPLY_SETTINGS = ['following', 'mentionedUsers', 'subscribers', 'verified'];

export const X_CAPABILITY: ProviderCapability = {
  platform: 'x',
  displayName: 'X',
  requiredScopes: X_SCOPES,
  mediaRule: {
    allowedKinds: ['image', 'gif', 'video'],
    minItems: 0,
    maxItems: 4,
    notes: [
      'Up to 4 images, or 1 animated GIF, or 1 video; kinds cannot be mixed.',
      'Images: JPEG, PNG, WebP up to 5 MB. Animated GIF up to 15 MB.',
      'Video: MP4 (H.264/AAC) up to 512 MB and 0.5-140 seconds.',
      'Alt text up to 1000 characters per image or GIF.',
    ],
    maxImageBytes: X_MEDIA_LIMITS.maxImageBytes,
    maxVideoBytes: X_MEDIA_LIMITS.maxVideoBytes,
    maxGifBytes: X_MEDIA_LIMITS.maxGifBytes,
    minVideoDurationSeconds: 0.5,
    maxVideoDurationSeconds: 140,
  },
  supportsScheduling: true,
  supportsComments: true,
  supportsAnalytics: true,
  supportsDelete: false,
  supportsUpdate: false,
  settingsFields: ['reply_settings', 'community_id', 'quote_tweet_id', 'in_reply_to_tweet_id'],
  settingRules: [
    {
      field: 'reply_settings',
      label: 'Who can reply',
      valueType: 'string',
      required: false,
      allowedValues: X_REPLY_SETTINGS,
    },
    {
      field: 'community_id',
      label: 'Post to a Community',
      valueType: 'string',
      required: false,
    },
    {
      field: 'quote_tweet_id',
      label: 'Quote a post',
      valueType: 'string',
      required: false,
    },
    {
      field: 'in_reply_to_tweet_id',
      label: 'Reply to a post',
      valueType: 'string',
      required: false,
    },
  ],
  toolNames: ['mentionSearch', 'communitySearch'],
  plugNames: ['firstComment', 'reply'],
  rateLimitPolicy: 'standard',
  maxTextLength: 280,
};

export const X_VALIDATION_RULES: ProviderValidationRules = {
  textCounting: 'x_weighted',
  textOptional: true,
  mediaRequired: false,
  allowMixedKinds: false,
  extra: {
    maxImages: 4,
    maxVideos: 1,
    maxGifs: 1,
    altTextMaxLength: 1000,
    textOrMediaRequired: true,
  },
};
