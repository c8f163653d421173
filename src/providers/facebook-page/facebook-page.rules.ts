/**
 * facebook_page: Pages API (limits re-checked 2026-11 against the pages below; boundary tests in
 * test/publishing/platform-limits.test.ts).
 * - Posts: https://developers.facebook.com/docs/pages-api/posts
 * - Photos: https://developers.facebook.com/docs/graph-api/reference/page/photos (4 MB images)
 * - Videos: https://developers.facebook.com/docs/video-api/guides/publishing (10 GB, 240 min)
 * - Permissions: https://developers.facebook.com/docs/pages-api/overview#permissions
 */

import { GRAPH_API_VERSION, graphApiVersion } from '../meta-shared/meta-api-version.js';
import type { ProviderCapability, ProviderSettingRule, ProviderValidationRules } from '../provider.js';

const MB = 1024 * 1024;

/** The API version the adapter calls and the description it was checked against (contracts/facebook-graph). */
export const FACEBOOK_PAGE_API = graphApiVersion('facebook-graph', 'https://developers.facebook.com/docs/pages-api');

export const FACEBOOK_PAGE_ENDPOINTS = {
  apiBaseUrl: `https://graph.facebook.com/${GRAPH_API_VERSION}`,
  authBaseUrl: `https://www.facebook.com/${GRAPH_API_VERSION}`,
  uploadBaseUrl: `https://graph-video.facebook.com/${GRAPH_API_VERSION}`,
} as const;

export const FACEBOOK_PAGE_SCOPES = [
  'pages_show_list',
  'pages_read_engagement',
  'pages_manage_posts',
  'pages_manage_engagement',
  'pages_read_user_content',
  'read_insights',
  'business_management',
];

const SETTING_RULES: ProviderSettingRule[] = [
  {
    field: 'link',
    label: 'Link to share with the post',
    valueType: 'string',
    required: false,
  },
  {
    field: 'videoTitle',
    label: 'Video title',
    valueType: 'string',
    required: false,
  },
];

export const FACEBOOK_PAGE_CAPABILITY: ProviderCapability = {
  platform: 'facebook_page',
  displayName: 'Facebook Page',
  requiredScopes: FACEBOOK_PAGE_SCOPES,
  mediaRule: {
    allowedKinds: ['image', 'video'],
    minItems: 0,
    maxItems: 10,
    maxImageBytes: 4 * MB,
    maxVideoBytes: 10 * 1024 * MB,
    minVideoDurationSeconds: 1,
    maxVideoDurationSeconds: 240 * 60,
    notes: [
      'Text-only posts, link posts, up to 10 photos (JPEG, PNG, GIF, WebP, at most 4 MB; PNG under 1 MB recommended) or one video.',
      'Photos and a video cannot be combined in one post.',
      'Videos: MP4 or MOV, at most 10 GB and 240 minutes.',
    ],
  },
  supportsScheduling: true,
  supportsComments: true,
  supportsAnalytics: true,
  supportsDelete: true,
  supportsUpdate: true,
  settingsFields: SETTING_RULES.map((r) => r.field),
  settingRules: SETTING_RULES,
  toolNames: ['pageProfile', 'mentionSearch'],
  plugNames: ['firstComment', 'reply'],
  rateLimitPolicy: 'standard',
  maxTextLength: 63206,
};

export const FACEBOOK_PAGE_RULES: ProviderValidationRules = {
  textCounting: 'characters',
  textOptional: true,
  mediaRequired: false,
  allowMixedKinds: false,
  extra: { maxVideos: 1, textOrMediaRequired: true },
};
