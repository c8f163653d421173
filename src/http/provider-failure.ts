/** The API's answer to a failed platform call (the provider tools route, comments). */
import { AppError } from '../platform/errors.js';
import type { Platform, ProviderErrorCategory } from '../platform/social-platforms.js';

/** What this answer reads of a failed platform call (a provider's ProviderError is one). */
export interface PlatformFailure {
  readonly platform: Platform;
  readonly category: ProviderErrorCategory;
  readonly providerCode: string | null;
  readonly message: string;
  readonly retryAfterSeconds: number | null;
}

interface ProviderFailureDetails {
  platform: string;
  providerCategory: ProviderErrorCategory;
  providerCode: string | null;
}

/**
 * What a route answers when the platform refused what the caller sent (its own 400 code and field): the
 * categories that count as such a refusal, and the answer.
 */
export interface RefusalAnswer {
  categories: readonly ProviderErrorCategory[];
  answer(err: PlatformFailure, details: ProviderFailureDetails): AppError;
}

/**
 * Maps a platform failure to an answer without the platform's raw body (it may echo request data): a
 * refused token, the platform's rate limit and other failures answer the same everywhere; a refusal of
 * the caller's input answers the route's own code (`refused`).
 */
export function providerFailure(err: PlatformFailure, refused: RefusalAnswer): AppError {
  const details: ProviderFailureDetails = {
    platform: err.platform,
    providerCategory: err.category,
    providerCode: err.providerCode,
  };
  if (refused.categories.includes(err.category)) return refused.answer(err, details);
  switch (err.category) {
    case 'auth_expired':
      return new AppError('channel_account_not_connected', {
        message: `The ${err.platform} token was refused; reconnect the channel.`,
        details: { ...details },
      });
    case 'rate_limited': {
      const retry = String(err.retryAfterSeconds ?? 60);
      return new AppError('provider_rate_limited', {
        message: `The ${err.platform} rate limit was reached; retry in ${retry} s.`,
        details: { ...details },
        headers: { 'retry-after': retry },
      });
    }
    default:
      return new AppError('provider_request_failed', {
        message: `The ${err.platform} call failed (${err.category}).`,
        details: { ...details },
      });
  }
}
