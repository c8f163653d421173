/**
 * Media and text rules common to both Instagram APIs (the same publishing backend); re-checked 2026-11,
 * boundary tests in test/publishing/platform-limits.test.ts. Caption at most 2200 characters, 30 hashtags and
 * 20 @ tags; carousels of up to 10 items; 100 API-published posts per 24 hours.
 * Source: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
 * (image specifications, reels specifications, carousel limits) and
 * https://developers.facebook.com/docs/instagram-platform/content-publishing (limitations).
 */
import type {
  Platform,
  ProviderCapability,
  ProviderMediaRule,
  ProviderSettingRule,
  ProviderToolName,
  ProviderValidationRules,
} from '../provider.js';

const MB = 1024 * 1024;

const INSTAGRAM_MEDIA_RULE: ProviderMediaRule = {
  allowedKinds: ['image', 'video'],
  minItems: 1,
  maxItems: 10,
  maxImageBytes: 8 * MB,
  maxVideoBytes: 300 * MB,
  minVideoDurationSeconds: 3,
  maxVideoDurationSeconds: 900,
  notes: [
    'Images: JPEG, at most 8 MB, width 320-1440 px, aspect ratio between 4:5 and 1.91:1.',
    'Videos are published as reels: MOV or MP4 (H.264/HEVC, AAC), 3 s to 15 min, at most 300 MB.',
    'Carousels hold 2 to 10 images and/or videos; all items are cropped to the first item aspect ratio.',
    'Stories accept one image or video (postType story, business accounts).',
    'At most 100 API-published posts per 24 hours per account (carousels count as one).',
  ],
};

const INSTAGRAM_SETTING_RULES: ProviderSettingRule[] = [
  {
    field: 'postType',
    label: 'Post type',
    valueType: 'string',
    required: false,
    allowedValues: ['post', 'reel', 'story'],
  },
  {
    field: 'shareToFeed',
    label: 'Also show the reel in the feed',
    valueType: 'boolean',
    required: false,
  },
  {
    field: 'coverUrl',
    label: 'Reel cover image URL',
    valueType: 'string',
    required: false,
  },
  {
    field: 'thumbOffsetMs',
    label: 'Reel thumbnail offset (ms)',
    valueType: 'number',
    required: false,
  },
];

export const INSTAGRAM_VALIDATION_RULES: ProviderValidationRules = {
  textCounting: 'characters',
  textOptional: true,
  mediaRequired: true,
  allowMixedKinds: true,
  minImageWidth: 320,
  maxImageWidth: 1440,
  minAspectRatio: 4 / 5,
  maxAspectRatio: 1.91,
  extra: {
    maxHashtags: 30,
    maxMentions: 20,
    postsPer24Hours: 100,
    carouselMinItems: 2,
  },
};

/** The capability both Instagram APIs share; they differ in name, scopes and the tools their login allows. */
export function instagramCapability(
  platform: Platform,
  displayName: string,
  requiredScopes: string[],
  toolNames: ProviderToolName[],
): ProviderCapability {
  return {
    platform,
    displayName,
    requiredScopes,
    mediaRule: INSTAGRAM_MEDIA_RULE,
    supportsScheduling: true,
    supportsComments: true,
    supportsAnalytics: true,
    supportsDelete: false,
    supportsUpdate: false,
    settingsFields: INSTAGRAM_SETTING_RULES.map((r) => r.field),
    settingRules: INSTAGRAM_SETTING_RULES,
    toolNames,
    plugNames: ['firstComment', 'reply'],
    rateLimitPolicy: 'strict',
    maxTextLength: 2200,
  };
}
