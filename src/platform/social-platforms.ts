/**
 * The social platforms the service publishes to, and the categories every platform failure falls into.
 * They are declared below the providers so that the generic layers (http's shared schemas and its answer
 * to a failed platform call) can name them without importing a provider; providers/provider.ts re-exports them.
 */
export const PLATFORMS = [
  'instagram_business',
  'instagram_standalone',
  'facebook_page',
  'threads',
  'youtube',
  'pinterest',
  'tiktok',
  'x',
] as const;
export type Platform = (typeof PLATFORMS)[number];

const PROVIDER_ERROR_CATEGORIES = [
  'auth_expired', // token expired or revoked: reconnect (or refresh) the channel
  'rate_limited', // retry after retryAfterSeconds
  'user_content', // the post itself is invalid for the platform: fix the post
  'platform_rejected', // platform refused for policy/permission/account reasons: do not retry
  'transient', // network error, 5xx, timeout before the request was sent: safe to retry
  'unknown_outcome', // the request may have reached the platform: never blindly retry
] as const;
export type ProviderErrorCategory = (typeof PROVIDER_ERROR_CATEGORIES)[number];
