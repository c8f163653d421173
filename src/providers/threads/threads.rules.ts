/**
 * threads: Threads API (limits re-checked 2026-11 against the pages below; boundary tests in
 * test/publishing/platform-limits.test.ts).
 * - Text posts at most 500 characters, emojis counted as their UTF-8 bytes:
 *   https://developers.facebook.com/docs/threads/posts#limitations
 * - Posts and media specifications: https://developers.facebook.com/docs/threads/posts
 * - Carousels (2-20 items): https://developers.facebook.com/docs/threads/posts#carousel-posts
 * - Publishing limits (250 posts, 1000 replies per 24 h):
 *   https://developers.facebook.com/docs/threads/troubleshooting#rate-limiting
 * - Permissions: https://developers.facebook.com/docs/threads/get-started
 */

import { THREADS_API_VERSION } from '../meta-shared/meta-api-version.js';
import type { ProviderCapability, ProviderSettingRule, ProviderValidationRules } from '../provider.js';
import type { PlatformApiVersion } from '../shared/api-version.js';

const MB = 1024 * 1024;

/** The API version the adapter calls and the description it was checked against (contracts/threads). */
export const THREADS_API: PlatformApiVersion = {
  version: `Threads API ${THREADS_API_VERSION}`,
  contract: 'threads',
  descriptionVersion: THREADS_API_VERSION,
  descriptionDate: '2026-11-28',
  reference: 'https://developers.facebook.com/docs/threads',
};

export const THREADS_ENDPOINTS = {
  apiBaseUrl: `https://graph.threads.net/${THREADS_API_VERSION}`,
  authBaseUrl: 'https://threads.net',
  uploadBaseUrl: `https://graph.threads.net/${THREADS_API_VERSION}`,
} as const;

export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_replies',
  'threads_read_replies',
  'threads_manage_insights',
  'threads_profile_discovery',
];

const THREADS_REPLY_CONTROLS = ['everyone', 'accounts_you_follow', 'mentioned_only', 'parent_post_author_only', 'followers_only'];

const SETTING_RULES: ProviderSettingRule[] = [
  {
    field: 'replyControl',
    label: 'Who can reply',
    valueType: 'string',
    required: false,
    allowedValues: THREADS_REPLY_CONTROLS,
  },
  {
    field: 'topicTag',
    label: 'Topic tag',
    valueType: 'string',
    required: false,
  },
  {
    field: 'linkAttachment',
    label: 'Link preview URL (text posts)',
    valueType: 'string',
    required: false,
  },
];

export const THREADS_CAPABILITY: ProviderCapability = {
  platform: 'threads',
  displayName: 'Threads',
  requiredScopes: THREADS_SCOPES,
  mediaRule: {
    allowedKinds: ['image', 'video'],
    minItems: 0,
    maxItems: 20,
    maxImageBytes: 8 * MB,
    maxVideoBytes: 1024 * MB,
    maxVideoDurationSeconds: 300,
    notes: [
      'Text-only posts, one image or video, or a carousel of 2 to 20 images and/or videos.',
      'Images: JPEG or PNG, at most 8 MB, width 320-1440 px, aspect ratio at most 10:1.',
      'Videos: MOV or MP4, at most 1 GB and 5 minutes.',
      'At most 250 posts and 1000 replies per 24 hours per profile; at most 5 links per post.',
    ],
  },
  supportsScheduling: true,
  supportsComments: true,
  supportsAnalytics: true,
  supportsDelete: true,
  supportsUpdate: false,
  settingsFields: SETTING_RULES.map((r) => r.field),
  settingRules: SETTING_RULES,
  toolNames: ['pageProfile', 'mentionSearch'],
  plugNames: ['firstComment', 'reply'],
  rateLimitPolicy: 'standard',
  maxTextLength: 500,
};

export const THREADS_RULES: ProviderValidationRules = {
  // the docs count emojis by their UTF-8 byte length
  textCounting: 'utf8_bytes',
  textOptional: true,
  mediaRequired: false,
  allowMixedKinds: true,
  minImageWidth: 320,
  maxImageWidth: 1440,
  minAspectRatio: 0.1,
  maxAspectRatio: 10,
  extra: {
    maxLinks: 5,
    postsPer24Hours: 250,
    repliesPer24Hours: 1000,
    carouselMinItems: 2,
    textOrMediaRequired: true,
  },
};
