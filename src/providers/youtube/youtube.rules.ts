/**
 * YouTube capability data: the single source plan validation and the capabilities route read.
 * Limits come from the YouTube Data API reference (re-checked 2026-11):
 * - videos.insert, https://developers.google.com/youtube/v3/docs/videos/insert : 256 GB, video/* and
 *   application/octet-stream MIME types;
 * - video resource, https://developers.google.com/youtube/v3/docs/videos : snippet.title max 100
 *   characters, snippet.description max 5000 bytes, neither may contain < or >; snippet.tags max 500
 *   characters in total; status.privacyStatus public/unlisted/private;
 * - upload help, https://support.google.com/youtube/answer/71673 : videos longer than 15 minutes need a
 *   verified channel, hard cap 12 hours.
 */
import type { ProviderCapability, ProviderValidationRules } from '../provider.js';
import type { PlatformApiVersion } from '../shared/api-version.js';

/** YouTube Data API version: the path segment of www.googleapis.com/youtube/{version} and /upload/youtube/{version}. */
const YOUTUBE_API_VERSION = 'v3';

/** The API version the adapter calls and the description it was checked against (contracts/youtube). */
export const YOUTUBE_API: PlatformApiVersion = {
  version: `YouTube Data API ${YOUTUBE_API_VERSION}`,
  contract: 'youtube',
  descriptionVersion: 'v3 (discovery revision 20230807)',
  descriptionDate: '2023-08-08',
  reference: 'https://developers.google.com/youtube/v3/docs',
};

export const YOUTUBE_ENDPOINTS = {
  /** YouTube Data API v3 resources (channels, videos, commentThreads, videoCategories) */
  apiBaseUrl: `https://www.googleapis.com/youtube/${YOUTUBE_API_VERSION}`,
  /** Google's authorization server; the token and revoke endpoints live on oauth2.googleapis.com */
  authBaseUrl: 'https://accounts.google.com',
  /** media upload host for videos.insert (resumable protocol) */
  uploadBaseUrl: `https://www.googleapis.com/upload/youtube/${YOUTUBE_API_VERSION}`,
} as const;

export const YOUTUBE_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

export const YOUTUBE_PRIVACY_STATUSES = ['public', 'unlisted', 'private'] as const;

const YOUTUBE_LIMITS = {
  titleMaxChars: 100,
  descriptionMaxBytes: 5000,
  maxVideoBytes: 256 * 1024 ** 3,
  maxVideoSeconds: 12 * 60 * 60,
  unverifiedMaxVideoSeconds: 15 * 60,
  tagsMaxChars: 500,
} as const;

export const youtubeCapability: ProviderCapability = {
  platform: 'youtube',
  displayName: 'YouTube',
  requiredScopes: YOUTUBE_SCOPES,
  mediaRule: {
    allowedKinds: ['video'],
    minItems: 1,
    maxItems: 1,
    maxVideoBytes: YOUTUBE_LIMITS.maxVideoBytes,
    minVideoDurationSeconds: 1,
    maxVideoDurationSeconds: YOUTUBE_LIMITS.maxVideoSeconds,
    notes: [
      'Exactly one video per post, uploaded with the resumable upload protocol.',
      'Accepted MIME types: video/* and application/octet-stream; up to 256 GB.',
      'Videos longer than 15 minutes need a verified channel (status.longUploadsStatus allowed); 12 hours maximum.',
      'Videos uploaded by unaudited API projects are locked to private.',
    ],
  },
  supportsScheduling: true,
  supportsComments: true,
  supportsAnalytics: true,
  supportsDelete: false,
  supportsUpdate: false,
  maxTextLength: YOUTUBE_LIMITS.descriptionMaxBytes,
  settingsFields: ['title', 'privacyStatus', 'categoryId', 'madeForKids', 'tags', 'notifySubscribers'],
  settingRules: [
    {
      field: 'title',
      label: 'Title (max 100 characters, no < or >)',
      valueType: 'string',
      required: true,
    },
    {
      field: 'privacyStatus',
      label: 'Privacy',
      valueType: 'string',
      required: true,
      allowedValues: [...YOUTUBE_PRIVACY_STATUSES],
    },
    {
      field: 'categoryId',
      label: 'Category (see channelCategories)',
      valueType: 'string',
      required: false,
    },
    {
      field: 'madeForKids',
      label: 'Made for kids',
      valueType: 'boolean',
      required: false,
    },
    {
      field: 'tags',
      label: 'Tags, comma separated (500 characters in total)',
      valueType: 'string',
      required: false,
    },
    {
      field: 'notifySubscribers',
      label: 'Notify subscribers',
      valueType: 'boolean',
      required: false,
    },
  ],
  toolNames: ['channelCategories', 'privacyOptions'],
  plugNames: ['firstComment', 'reply'],
  // 10,000 quota units a day per project and 1,600 per upload: a handful of uploads a day
  rateLimitPolicy: 'strict',
};

export const youtubeValidationRules: ProviderValidationRules = {
  textCounting: 'utf8_bytes',
  textOptional: true,
  mediaRequired: true,
  allowMixedKinds: false,
  extra: {
    titleMaxChars: YOUTUBE_LIMITS.titleMaxChars,
    titleRequired: true,
    descriptionMaxBytes: YOUTUBE_LIMITS.descriptionMaxBytes,
    forbiddenCharacters: '<>',
    tagsMaxChars: YOUTUBE_LIMITS.tagsMaxChars,
    unverifiedMaxVideoSeconds: YOUTUBE_LIMITS.unverifiedMaxVideoSeconds,
  },
};
