/**
 * The one place for the TikTok API version the adapter calls (open.tiktokapis.com/v2/...) and the date the
 * hand-written description (contracts/tiktok, from the reference pages it cites) was checked against.
 * SERVICE_TIKTOK_API_BASE_URL still points the adapter anywhere.
 */

export const TIKTOK_API_VERSION = 'v2';

export const TIKTOK_DESCRIPTION_DATE = '2026-11-28';
