/**
 * Maps Meta Graph errors (Facebook, Instagram, Threads share one error body) to ProviderError categories.
 *
 * Sources:
 * - https://developers.facebook.com/docs/graph-api/guides/error-handling
 * - https://developers.facebook.com/docs/graph-api/overview/rate-limiting
 * - https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes
 * - https://developers.facebook.com/docs/threads/troubleshooting
 *
 * Error body: {"error":{"message","type","code","error_subcode","is_transient","error_user_title",
 * "error_user_msg","fbtrace_id"}}. The Instagram Login token endpoint answers a flat
 * {"error_type","code","error_message"} instead; both are read here.
 */
import { type Platform, ProviderError, type ProviderErrorCategory } from '../provider.js';
import { retryAfterSeconds } from '../shared/provider-http.js';

export interface GraphErrorBody {
  message: string;
  type: string | null;
  code: number | null;
  subcode: number | null;
  isTransient: boolean;
  userMessage: string | null;
  fbtraceId: string | null;
}

/** throttling codes: app (4), user (17), page (32), custom (613), app-level (341), BUC 80000-80014 */
const RATE_CODES = new Set([4, 17, 32, 341, 613]);
/** subcodes whose message is "too many posts / actions in 24h" (IG content publishing limit) */
const PUBLISH_LIMIT_SUBCODES = new Set([2207042]);
/** session/token subcodes under OAuthException: expired, changed password, not authorized, ... */
const AUTH_SUBCODES = new Set([458, 459, 460, 463, 464, 467, 492]);
/** container not ready yet: retry the same call shortly */
const NOT_READY_SUBCODES = new Set([2207027]);
/** permission and policy codes: the account or app is not allowed to do this */
const REJECTED_CODES = new Set([3, 10, 101, 368, 2022, 2018278]);
/** codes that describe the post itself (media, text, link) */
const CONTENT_CODES = new Set([100, 324, 351, 352, 389, 506, 1609005, 9004, 36000, 36001, 36003, 36004]);

export function parseGraphError(body: unknown): GraphErrorBody | null {
  if (!body || typeof body !== 'object') return null;
  const obj = body as Record<string, unknown>;
  const err = obj.error;
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    return {
      message: typeof e.message === 'string' ? e.message : 'unknown Graph error',
      type: typeof e.type === 'string' ? e.type : null,
      code: typeof e.code === 'number' ? e.code : Number(e.code) || null,
      subcode: typeof e.error_subcode === 'number' ? e.error_subcode : Number(e.error_subcode) || null,
      isTransient: e.is_transient === true,
      userMessage: typeof e.error_user_msg === 'string' ? e.error_user_msg : null,
      fbtraceId: typeof e.fbtrace_id === 'string' ? e.fbtrace_id : null,
    };
  }
  if (typeof obj.error_type === 'string' || typeof obj.error_message === 'string') {
    return {
      message: String(obj.error_message ?? obj.error_type),
      type: typeof obj.error_type === 'string' ? obj.error_type : null,
      code: typeof obj.code === 'number' ? obj.code : null,
      subcode: null,
      isTransient: false,
      userMessage: null,
      fbtraceId: null,
    };
  }
  return null;
}

/**
 * Retry delay from Meta's usage headers. X-Business-Use-Case-Usage carries
 * estimated_time_to_regain_access in minutes per business id; Retry-After is honoured if present.
 */
export function metaRetryAfterSeconds(headers: Record<string, string>): number | null {
  const direct = retryAfterSeconds(headers);
  if (direct !== null) return direct;
  for (const name of ['x-business-use-case-usage', 'x-ad-account-usage', 'x-app-usage']) {
    const raw = headers[name];
    if (!raw) continue;
    try {
      const parsed = JSON.parse(raw) as unknown;
      const entries: unknown[] =
        parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.values(parsed as Record<string, unknown>).flat() : [parsed];
      let minutes = 0;
      for (const entry of entries) {
        const value = (entry as Record<string, unknown> | null)?.estimated_time_to_regain_access;
        if (typeof value === 'number' && value > minutes) minutes = value;
      }
      if (minutes > 0) return minutes * 60;
    } catch {
      // a malformed usage header only loses the hint
    }
  }
  return null;
}

export function categorizeGraphError(status: number, err: GraphErrorBody | null): ProviderErrorCategory {
  const code = err?.code ?? null;
  const subcode = err?.subcode ?? null;
  if (code === 190 || code === 102 || code === 2500) return 'auth_expired';
  if (err?.type === 'OAuthException' && subcode !== null && AUTH_SUBCODES.has(subcode)) return 'auth_expired';
  if (status === 429) return 'rate_limited';
  if (code !== null && (RATE_CODES.has(code) || (code >= 80000 && code <= 80014))) return 'rate_limited';
  if (subcode !== null && PUBLISH_LIMIT_SUBCODES.has(subcode)) return 'rate_limited';
  if (subcode !== null && NOT_READY_SUBCODES.has(subcode)) return 'transient';
  if (code === 1 || code === 2 || err?.isTransient || status >= 500) return 'transient';
  if (code !== null && (REJECTED_CODES.has(code) || (code >= 200 && code <= 299))) return 'platform_rejected';
  if (code !== null && CONTENT_CODES.has(code)) return 'user_content';
  // Instagram publishing subcodes (2207xxx) describe the media or caption
  if (subcode !== null && subcode >= 2207000 && subcode < 2208000) return 'user_content';
  if (status === 401) return 'auth_expired';
  if (status === 403) return 'platform_rejected';
  if (status === 400 || status === 413 || status === 422) return 'user_content';
  return 'platform_rejected';
}

/** Removes secrets from a platform body before it is stored on the error. */
function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value === 'string') return scrubUrls(value);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = /token|secret|code_verifier/i.test(k) ? '[redacted]' : redactSecrets(v);
  }
  return out;
}

/**
 * Platforms echo media URLs in messages ("could not be fetched from this uri: ..."); our media URLs
 * carry signatures in the query, so queries are dropped from any URL in a message.
 */
function scrubUrls(text: string): string {
  return text.replace(/(https?:\/\/[^\s?#"']+)[?#][^\s"']*/g, '$1?[redacted]');
}

const DEFAULT_RETRY_SECONDS = 60;
const PUBLISH_LIMIT_RETRY_SECONDS = 3600;

export function graphErrorToProviderError(
  platform: Platform,
  status: number,
  headers: Record<string, string>,
  body: unknown,
): ProviderError {
  const err = parseGraphError(body);
  const category = categorizeGraphError(status, err);
  let retry: number | null = null;
  if (category === 'rate_limited') {
    retry =
      metaRetryAfterSeconds(headers) ??
      (err?.subcode && PUBLISH_LIMIT_SUBCODES.has(err.subcode) ? PUBLISH_LIMIT_RETRY_SECONDS : DEFAULT_RETRY_SECONDS);
  }
  const code = err?.code ?? null;
  const providerCode = code === null ? null : err?.subcode ? `${code}/${err.subcode}` : String(code);
  return new ProviderError({
    platform,
    category,
    message: scrubUrls(`${platform} answered ${status}: ${err?.userMessage ?? err?.message ?? 'unexpected response'}`),
    providerCode,
    httpStatus: status,
    retryAfterSeconds: retry,
    providerResponse: redactSecrets(body),
  });
}
