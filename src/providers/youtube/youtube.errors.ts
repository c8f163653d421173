/**
 * Mapping of Google errors to ProviderError categories (YouTube Data API errors and OAuth errors).
 *
 * Official references:
 * - https://developers.google.com/youtube/v3/docs/errors (error body, reasons, quota errors)
 * - https://developers.google.com/youtube/v3/getting-started#quota (daily quota resets at midnight Pacific Time)
 * - https://developers.google.com/identity/protocols/oauth2/web-server#exchange-authorization-code (OAuth errors)
 *
 * auth_expired: 401 authError, invalid_grant on exchange or refresh. rate_limited: quotaExceeded,
 * rateLimitExceeded, userRateLimitExceeded (403 or 429), uploadLimitExceeded. user_content: other 400s
 * (invalidTitle, invalidDescription, invalidCategoryId...). platform_rejected: 403 forbidden,
 * insufficientPermissions, youtubeSignupRequired, 404. transient: 5xx. unknown_outcome and network
 * failures come from provider-http.
 */
import { ProviderError } from '../provider.js';
import { type ProviderHttpResponse, retryAfterSeconds } from '../shared/provider-http.js';

const PLATFORM = 'youtube' as const;
/** Reasons Google uses for quota and rate limits (403 or 429). */
const RATE_LIMIT_REASONS = new Set([
  'quotaExceeded',
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'dailyLimitExceeded',
  'servingLimitExceeded',
]);

interface GoogleApiErrorBody {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: Array<{ reason?: string; domain?: string; message?: string }>;
  };
}
/** Seconds until the daily YouTube quota resets (midnight America/Los_Angeles). */
function secondsUntilQuotaReset(now = new Date()): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(now);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Math.max(1, 86_400 - (get('hour') * 3600 + get('minute') * 60 + get('second')));
}

/** Maps a non-2xx YouTube Data API answer to a ProviderError. */
export function mapYoutubeApiError(res: ProviderHttpResponse, operation: string): ProviderError {
  const body = (res.body ?? {}) as GoogleApiErrorBody;
  const reasons = (body.error?.errors ?? []).map((e) => e.reason ?? '').filter(Boolean);
  const reason = reasons[0] ?? body.error?.status ?? null;
  const message = `youtube ${operation} failed (${res.status}${reason ? ` ${reason}` : ''}): ${body.error?.message ?? 'no message'}`;
  const base = {
    platform: PLATFORM,
    message,
    providerCode: reason,
    httpStatus: res.status,
    providerResponse: res.body,
  };
  const rateReason = reasons.find((r) => RATE_LIMIT_REASONS.has(r));
  if (rateReason || res.status === 429) {
    const fromHeader = retryAfterSeconds(res.headers);
    const retry = fromHeader ?? (rateReason === 'quotaExceeded' || rateReason === 'dailyLimitExceeded' ? secondsUntilQuotaReset() : 60);
    return new ProviderError({
      ...base,
      category: 'rate_limited',
      retryAfterSeconds: retry,
    });
  }
  // per-channel daily upload cap: the docs say to try again in 24 hours
  if (reasons.includes('uploadLimitExceeded')) {
    return new ProviderError({
      ...base,
      category: 'rate_limited',
      retryAfterSeconds: 86_400,
    });
  }
  if (res.status === 401) {
    // a Google account without a YouTube channel: reconnecting will not help
    if (reasons.includes('youtubeSignupRequired')) return new ProviderError({ ...base, category: 'platform_rejected' });
    return new ProviderError({ ...base, category: 'auth_expired' });
  }
  if (res.status >= 500) return new ProviderError({ ...base, category: 'transient' });
  if (res.status === 400 || res.status === 413 || res.status === 409) {
    return new ProviderError({ ...base, category: 'user_content' });
  }
  // 403 forbidden / insufficientPermissions / commentsDisabled, 404 videoNotFound, anything else
  return new ProviderError({ ...base, category: 'platform_rejected' });
}

/** Maps a non-2xx answer of Google's token or revoke endpoint. */
export function mapGoogleOAuthError(res: ProviderHttpResponse, operation: string): ProviderError {
  const body = (res.body ?? {}) as {
    error?: string;
    error_description?: string;
  };
  const code = typeof body.error === 'string' ? body.error : null;
  const message = `google oauth ${operation} failed (${res.status}${code ? ` ${code}` : ''}): ${body.error_description ?? ''}`.trim();
  const base = {
    platform: PLATFORM,
    message,
    providerCode: code,
    httpStatus: res.status,
    providerResponse: res.body,
  };
  if (res.status === 429) {
    return new ProviderError({
      ...base,
      category: 'rate_limited',
      retryAfterSeconds: retryAfterSeconds(res.headers) ?? 60,
    });
  }
  if (res.status >= 500) return new ProviderError({ ...base, category: 'transient' });
  // expired, revoked or already used code / refresh token: the user must connect again
  if (code === 'invalid_grant' || code === 'invalid_token') return new ProviderError({ ...base, category: 'auth_expired' });
  // invalid_client, unauthorized_client, redirect_uri_mismatch, invalid_request: our app configuration
  return new ProviderError({ ...base, category: 'platform_rejected' });
}
