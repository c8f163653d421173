/**
 * Mapping of Pinterest API v5 errors to ProviderError categories. Pinterest answers errors as
 * {"code": number, "message": string}; the HTTP status carries the class of failure.
 *
 * Official references:
 * - https://developers.pinterest.com/docs/api/v5/pins-create (400 invalid parameters, 403 image too
 *   small/large/broken, 404 board or section not found, 429 rate limit)
 * - https://developers.pinterest.com/docs/reference/rate-limits/ (429 per category, per user, per app)
 * - https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/
 *
 * auth_expired: 401, and 400/401 from the token endpoint (expired or revoked code or refresh token).
 * rate_limited: 429. user_content: 400, 403/404 on Pin creation (the image, video, board or section of
 * the post). platform_rejected: other 403/404 and unexpected statuses. transient: 5xx and storage
 * (upload_url) failures other than a too-large file.
 */
import { ProviderError } from '../provider.js';
import { type ProviderHttpResponse, retryAfterSeconds } from '../shared/provider-http.js';

const PLATFORM = 'pinterest' as const;
const DEFAULT_RETRY_SECONDS = 60;

interface PinterestErrorBody {
  code?: number;
  message?: string;
}

function describe(res: ProviderHttpResponse, operation: string) {
  const body = (res.body ?? {}) as PinterestErrorBody;
  const code = typeof body.code === 'number' ? String(body.code) : null;
  const message = `pinterest ${operation} failed (${res.status}${code ? ` code ${code}` : ''}): ${body.message ?? 'no message'}`;
  return {
    platform: PLATFORM,
    message,
    providerCode: code,
    httpStatus: res.status,
    providerResponse: res.body,
  };
}

/** 429 (rate_limited, after Retry-After) and 5xx (transient) mean the same on every Pinterest endpoint. */
function rateLimitedOrTransient(res: ProviderHttpResponse, base: ReturnType<typeof describe>): ProviderError | null {
  if (res.status === 429) {
    return new ProviderError({
      ...base,
      category: 'rate_limited',
      retryAfterSeconds: retryAfterSeconds(res.headers) ?? DEFAULT_RETRY_SECONDS,
    });
  }
  if (res.status >= 500) return new ProviderError({ ...base, category: 'transient' });
  return null;
}

export function mapPinterestApiError(res: ProviderHttpResponse, operation: string): ProviderError {
  const base = describe(res, operation);
  if (res.status === 401) return new ProviderError({ ...base, category: 'auth_expired' });
  const throttledOrDown = rateLimitedOrTransient(res, base);
  if (throttledOrDown) return throttledOrDown;
  if (res.status === 400) return new ProviderError({ ...base, category: 'user_content' });
  // on Pin creation, 403 is the image being too small, too large or broken and 404 the board or
  // section not found: both are fixed by changing the post
  if (operation === 'pins.create' && (res.status === 403 || res.status === 404)) {
    return new ProviderError({ ...base, category: 'user_content' });
  }
  return new ProviderError({ ...base, category: 'platform_rejected' });
}

export function mapPinterestOAuthError(res: ProviderHttpResponse, operation: string): ProviderError {
  const base = describe(res, `oauth ${operation}`);
  const throttledOrDown = rateLimitedOrTransient(res, base);
  if (throttledOrDown) return throttledOrDown;
  if (res.status === 400 || res.status === 401) return new ProviderError({ ...base, category: 'auth_expired' });
  return new ProviderError({ ...base, category: 'platform_rejected' });
}

/** The storage host behind upload_url answers S3-style XML errors. */
export function mapPinterestUploadError(res: ProviderHttpResponse): ProviderError {
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? '');
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? null;
  const tooLarge = code === 'EntityTooLarge' || res.status === 413;
  return new ProviderError({
    platform: PLATFORM,
    category: tooLarge ? 'user_content' : 'transient',
    message: `pinterest media upload failed (${res.status}${code ? ` ${code}` : ''})`,
    providerCode: code,
    httpStatus: res.status,
    providerResponse: text.slice(0, 2000),
  });
}
