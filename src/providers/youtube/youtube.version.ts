/**
 * The one place for the YouTube API versions the adapter calls and the description it was checked
 * against (contracts/youtube: the YouTube Data API v3 discovery document, converted to OpenAPI 3).
 * SERVICE_YOUTUBE_API_BASE_URL, _UPLOAD_BASE_URL and _AUTH_BASE_URL still point the adapter anywhere.
 */

/** YouTube Data API version: the path segment of www.googleapis.com/youtube/{version} and /upload/youtube/{version}. */
export const YOUTUBE_API_VERSION = 'v3';

/** Revision of the discovery document the description is converted from (its `revision`). */
export const YOUTUBE_DESCRIPTION_REVISION = '20230807';
