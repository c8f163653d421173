/**
 * instagram_business: Instagram API with Facebook Login (professional accounts linked to a Page).
 * Permissions: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login/overview
 * Publishing limits (caption, hashtags, media count, size, duration, aspect ratio) are shared with the
 * other Instagram login and live in ../meta-shared/instagram-rules.ts, re-checked 2026-11 against
 * https://developers.facebook.com/docs/instagram-platform/content-publishing and
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
 */

import { INSTAGRAM_VALIDATION_RULES, instagramCapability } from '../meta-shared/instagram-rules.js';
import { GRAPH_API_VERSION, graphApiVersion } from '../meta-shared/meta-api-version.js';
import type { ProviderValidationRules } from '../provider.js';

/** The API version the adapter calls and the description it was checked against (contracts/facebook-graph). */
export const INSTAGRAM_BUSINESS_API = graphApiVersion(
  'facebook-graph',
  'https://developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login',
);

export const INSTAGRAM_BUSINESS_ENDPOINTS = {
  apiBaseUrl: `https://graph.facebook.com/${GRAPH_API_VERSION}`,
  authBaseUrl: `https://www.facebook.com/${GRAPH_API_VERSION}`,
  uploadBaseUrl: 'https://rupload.facebook.com',
} as const;

export const INSTAGRAM_BUSINESS_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'instagram_manage_insights',
  'pages_show_list',
  'pages_read_engagement',
  'business_management',
];

export const INSTAGRAM_BUSINESS_CAPABILITY = instagramCapability(
  'instagram_business',
  'Instagram (Business, via Facebook)',
  INSTAGRAM_BUSINESS_SCOPES,
  ['pageProfile', 'mentionSearch'],
);

export const INSTAGRAM_BUSINESS_RULES: ProviderValidationRules = INSTAGRAM_VALIDATION_RULES;
