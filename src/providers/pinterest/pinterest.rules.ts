/**
 * Pinterest capability data: the single source plan validation and the capabilities route read.
 * Sources (re-checked 2026-11):
 * - API v5 create Pin, https://developers.pinterest.com/docs/api/v5/pins-create : `title` at most 100
 *   characters, `description` at most 800, `alt_text` at most 500, `link` at most 2048; `board_id`
 *   required (a Pin is saved on a board); one media_source per Pin: an image URL, 2 to 5 image URLs
 *   (a carousel, `multiple_image_urls`) or an uploaded video (contracts/pinterest, PinMediaSourceImagesURL).
 * - Product specs, https://help.pinterest.com/en/business/article/pinterest-product-specs : images
 *   PNG/JPEG up to 20 MB; videos .mp4/.mov/.m4v up to 2 GB, 4 s to 15 min, aspect ratio between 1:2
 *   and 1.91:1.
 */
import type { ProviderCapability, ProviderValidationRules } from '../provider.js';
import type { PlatformApiVersion } from '../shared/api-version.js';

/** The API version the adapter calls and the published description it was checked against (contracts/pinterest). */
export const PINTEREST_API: PlatformApiVersion = {
  version: 'Pinterest API v5',
  contract: 'pinterest',
  descriptionVersion: '5.23.0',
  descriptionDate: '2025-12-11',
  reference: 'https://developers.pinterest.com/docs/api/v5/',
};

export const PINTEREST_ENDPOINTS = {
  /** REST API v5 (also hosts the OAuth token endpoint, /v5/oauth/token) */
  apiBaseUrl: 'https://api.pinterest.com/v5',
  /** consent screen: https://www.pinterest.com/oauth/ */
  authBaseUrl: 'https://www.pinterest.com',
  /** video bytes go to the upload_url POST /v5/media returns; this is its usual host */
  uploadBaseUrl: 'https://pinterest-media-upload.s3-accelerate.amazonaws.com',
} as const;

export const PINTEREST_SCOPES = ['boards:read', 'pins:read', 'pins:write', 'user_accounts:read'];

export const PINTEREST_LIMITS = {
  titleMaxChars: 100,
  descriptionMaxChars: 800,
  altTextMaxChars: 500,
  linkMaxChars: 2048,
  maxImageBytes: 20 * 1024 * 1024,
  /** a carousel Pin: 2 to 5 images (media_source multiple_image_urls, items 2..5 in the v5 description) */
  maxCarouselImages: 5,
  maxVideoBytes: 2 * 1024 ** 3,
  minVideoSeconds: 4,
  maxVideoSeconds: 15 * 60,
} as const;

export const pinterestCapability: ProviderCapability = {
  platform: 'pinterest',
  displayName: 'Pinterest',
  requiredScopes: PINTEREST_SCOPES,
  mediaRule: {
    allowedKinds: ['image', 'video'],
    minItems: 1,
    maxItems: PINTEREST_LIMITS.maxCarouselImages,
    maxImageBytes: PINTEREST_LIMITS.maxImageBytes,
    maxVideoBytes: PINTEREST_LIMITS.maxVideoBytes,
    minVideoDurationSeconds: PINTEREST_LIMITS.minVideoSeconds,
    maxVideoDurationSeconds: PINTEREST_LIMITS.maxVideoSeconds,
    notes: [
      'One image, a carousel of 2 to 5 images, or one video per Pin; images and videos are not mixed.',
      'A carousel Pin has one title, description, link and alt text (the first alt text given).',
      'Images: PNG or JPEG up to 20 MB, fetched by Pinterest from a public URL; 2:3 (1000 x 1500) recommended.',
      'Videos: MP4, MOV or M4V up to 2 GB, 4 seconds to 15 minutes, aspect ratio between 1:2 and 1.91:1; uploaded via POST /v5/media.',
    ],
  },
  supportsScheduling: true,
  supportsComments: false,
  supportsAnalytics: true,
  supportsDelete: false,
  supportsUpdate: false,
  maxTextLength: PINTEREST_LIMITS.descriptionMaxChars,
  settingsFields: ['boardId', 'boardSectionId', 'title', 'link', 'coverImageUrl'],
  settingRules: [
    {
      field: 'boardId',
      label: 'Board (see boardList)',
      valueType: 'string',
      required: true,
    },
    {
      field: 'boardSectionId',
      label: 'Board section',
      valueType: 'string',
      required: false,
    },
    {
      field: 'title',
      label: 'Title (max 100 characters)',
      valueType: 'string',
      required: false,
    },
    {
      field: 'link',
      label: 'Destination link (max 2048 characters)',
      valueType: 'string',
      required: false,
    },
    {
      field: 'coverImageUrl',
      label: 'Video cover image URL',
      valueType: 'string',
      required: false,
    },
  ],
  toolNames: ['boardList'],
  plugNames: [],
  rateLimitPolicy: 'standard',
};

export const pinterestValidationRules: ProviderValidationRules = {
  textCounting: 'characters',
  textOptional: true,
  mediaRequired: true,
  allowMixedKinds: false,
  minAspectRatio: 0.5,
  maxAspectRatio: 1.91,
  extra: {
    titleMaxChars: PINTEREST_LIMITS.titleMaxChars,
    altTextMaxChars: PINTEREST_LIMITS.altTextMaxChars,
    linkMaxChars: PINTEREST_LIMITS.linkMaxChars,
    boardRequired: true,
    maxVideos: 1,
  },
};
