/**
 * instagram_standalone: Instagram API with Instagram Login (no Facebook Page needed).
 * Scopes: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 * Publishing limits (caption, hashtags, media count, size, duration, aspect ratio) are shared with the
 * other Instagram login and live in ../meta-shared/instagram-rules.ts, re-checked 2026-11 against
 * https://developers.facebook.com/docs/instagram-platform/content-publishing and
 * https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media
 */

import { INSTAGRAM_VALIDATION_RULES, instagramCapability } from '../meta-shared/instagram-rules.js';
import { GRAPH_API_VERSION, graphApiVersion } from '../meta-shared/meta-api-version.js';
import type { ProviderValidationRules } from '../provider.js';

/** The API version the adapter calls and the description it was checked against (contracts/instagram-graph). */
export const INSTAGRAM_STANDALONE_API = graphApiVersion(
  'instagram-graph',
  'https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login',
  `Instagram API with Instagram Login (Graph API ${GRAPH_API_VERSION})`,
);

export const INSTAGRAM_STANDALONE_ENDPOINTS = {
  apiBaseUrl: `https://graph.instagram.com/${GRAPH_API_VERSION}`,
  /** serves both /oauth/authorize and the code exchange /oauth/access_token */
  authBaseUrl: 'https://api.instagram.com',
  uploadBaseUrl: 'https://rupload.facebook.com',
} as const;

export const INSTAGRAM_STANDALONE_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
];

// business discovery and hashtag search need Facebook Login; only the own profile is available
export const INSTAGRAM_STANDALONE_CAPABILITY = instagramCapability(
  'instagram_standalone',
  'Instagram (Instagram Login)',
  INSTAGRAM_STANDALONE_SCOPES,
  ['pageProfile'],
);

export const INSTAGRAM_STANDALONE_RULES: ProviderValidationRules = INSTAGRAM_VALIDATION_RULES;
