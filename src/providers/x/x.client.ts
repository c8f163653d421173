/**
 * X API v2 HTTP calls and the mapping of X errors to ProviderError.
 *
 * Official docs:
 * - OAuth 2.0 Authorization Code Flow with PKCE: https://docs.x.com/fundamentals/authentication/oauth-2-0/authorization-code
 *   and https://docs.x.com/fundamentals/authentication/oauth-2-0/user-access-token (token, refresh, revoke, Basic auth)
 * - POST /2/tweets: https://docs.x.com/x-api/posts/manage-tweets/api-reference/post-tweets
 * - GET /2/tweets/:id: https://docs.x.com/x-api/posts/lookup/api-reference/get-tweets-id
 * - Recent search: https://docs.x.com/x-api/posts/search/api-reference/get-tweets-search-recent
 * - Hide replies (PUT /2/tweets/:id/hidden): https://docs.x.com/x-api/posts/hide-replies/quickstart
 * - Chunked media upload: https://docs.x.com/x-api/media/quickstart/media-upload-chunked
 * - Media metadata (alt text): https://docs.x.com/x-api/media/api-reference/media-metadata-create
 * - GET /2/users/me: https://docs.x.com/x-api/users/lookup/api-reference/get-users-me
 * - Users search: https://docs.x.com/x-api/x-api-v2/users/search ; lookup by username: https://docs.x.com/x-api/users/lookup
 * - Communities search: https://docs.x.com/x-api/communities/search
 * - Rate limits (x-rate-limit-* headers, 429): https://docs.x.com/fundamentals/rate-limits
 * - Response codes and problem details: https://docs.x.com/x-api/fundamentals/response-codes-and-errors
 */
import { type ProviderAppConfig, ProviderError, type ProviderErrorCategory } from '../provider.js';
import { type ProviderHttpRequest, type ProviderHttpResponse, providerRequest } from '../shared/provider-http.js';

interface XProblem {
  title?: string;
  detail?: string;
  type?: string;
  status?: number;
  errors?: Array<{
    code?: number;
    message?: string;
    title?: string;
    detail?: string;
    type?: string;
  }>;
  error?: string;
  error_description?: string;
}

/** Seconds until x-rate-limit-reset (a Unix timestamp), else Retry-After, else one 15-minute window. */
function xRetryAfter(headers: Record<string, string>, now = Date.now()): number {
  const reset = Number(headers['x-rate-limit-reset']);
  if (Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil(reset - now / 1000));
  const retry = Number(headers['retry-after']);
  if (Number.isFinite(retry) && retry >= 0) return retry;
  return 900;
}

function problemCode(p: XProblem, status: number): string {
  if (typeof p.error === 'string') return p.error;
  const type = p.type ?? p.errors?.[0]?.type;
  if (type && type !== 'about:blank') return type.split('/').pop() ?? type;
  const code = p.errors?.[0]?.code;
  if (code !== undefined) return String(code);
  return `http_${status}`;
}

function xError(res: ProviderHttpResponse, opts: { idempotent: boolean; oauth?: boolean }): ProviderError {
  const p = (res.body && typeof res.body === 'object' ? res.body : {}) as XProblem;
  const status = res.status;
  const detail = p.detail ?? p.error_description ?? p.errors?.[0]?.message ?? p.errors?.[0]?.detail ?? p.title ?? '';
  let code = problemCode(p, status);
  let category: ProviderErrorCategory;
  if (opts.oauth && typeof p.error === 'string') {
    // a refused code or refresh token means the user must connect again; a refused client is our configuration
    category = p.error === 'invalid_client' || p.error === 'unauthorized_client' ? 'platform_rejected' : 'auth_expired';
  } else if (status === 401) {
    category = 'auth_expired';
  } else if (status === 429 || code === 'usage-capped') {
    category = 'rate_limited';
  } else if (status === 403 && /duplicate content/i.test(detail)) {
    category = 'user_content';
    code = 'duplicate_content';
  } else if (status === 403) {
    category = 'platform_rejected';
  } else if (status >= 500) {
    // a gateway timeout on a create may still have created the post
    category = status === 504 && !opts.idempotent ? 'unknown_outcome' : 'transient';
  } else {
    category = 'user_content';
  }
  return new ProviderError({
    platform: 'x',
    category,
    message: `X ${status} ${code}: ${detail || 'request failed'}`,
    providerCode: code,
    httpStatus: status,
    retryAfterSeconds: category === 'rate_limited' ? xRetryAfter(res.headers) : null,
    providerResponse: res.body,
  });
}

export interface XTokenResponse {
  token_type: string;
  expires_in?: number;
  access_token: string;
  scope?: string;
  refresh_token?: string;
}

export class XClient {
  constructor(private readonly config: ProviderAppConfig) {}

  apiUrl(path: string): string {
    return `${this.config.apiBaseUrl.replace(/\/$/, '')}${path}`;
  }

  uploadUrl(path: string): string {
    return `${this.config.uploadBaseUrl.replace(/\/$/, '')}${path}`;
  }

  /** Sends a request and returns the JSON body of a 2xx answer; anything else becomes a ProviderError. */
  async send<T>(req: Omit<ProviderHttpRequest, 'timeoutMs'> & { oauth?: boolean }): Promise<T> {
    const res = await providerRequest('x', {
      ...req,
      timeoutMs: this.config.timeoutMs,
    });
    if (res.status >= 200 && res.status < 300) return res.body as T;
    throw xError(res, { idempotent: req.idempotent, oauth: req.oauth });
  }

  private tokenHeaders(): Record<string, string> {
    // confidential clients authenticate with HTTP Basic; public clients only send client_id
    if (!this.config.clientSecret) return {};
    const basic = Buffer.from(`${this.config.clientId ?? ''}:${this.config.clientSecret}`).toString('base64');
    return { authorization: `Basic ${basic}` };
  }

  private tokenCall<T>(path: string, form: Record<string, string>): Promise<T> {
    if (!this.config.clientId) {
      throw new ProviderError({
        platform: 'x',
        category: 'platform_rejected',
        message: 'X client id is not configured',
      });
    }
    return this.send<T>({
      method: 'POST',
      url: this.apiUrl(path),
      headers: this.tokenHeaders(),
      form: new URLSearchParams({ ...form, client_id: this.config.clientId }),
      idempotent: true,
      oauth: true,
    });
  }

  exchangeCode(code: string, redirectUri: string, codeVerifier: string): Promise<XTokenResponse> {
    return this.tokenCall('/oauth2/token', {
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    });
  }

  refresh(refreshToken: string): Promise<XTokenResponse> {
    return this.tokenCall('/oauth2/token', {
      refresh_token: refreshToken,
      grant_type: 'refresh_token',
    });
  }

  async revoke(token: string): Promise<void> {
    await this.tokenCall('/oauth2/revoke', {
      token,
      token_type_hint: 'access_token',
    });
  }

  get<T>(token: string, path: string, query: Record<string, string | number | undefined>, signal?: AbortSignal): Promise<T> {
    const url = new URL(this.apiUrl(path));
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    return this.send<T>({
      method: 'GET',
      url: url.toString(),
      headers: { authorization: `Bearer ${token}` },
      idempotent: true,
      signal,
    });
  }

  /** POST /2/tweets: creates a post, so a lost answer is an unknown outcome. */
  createTweet(token: string, body: Record<string, unknown>, signal?: AbortSignal) {
    return this.send<{ data: { id: string; text: string } }>({
      method: 'POST',
      url: this.apiUrl('/tweets'),
      headers: { authorization: `Bearer ${token}` },
      json: body,
      idempotent: false,
      signal,
    });
  }

  /** Hides (or shows) a reply in a conversation the user started (needs tweet.moderate.write). */
  hideReply(token: string, tweetId: string, hidden: boolean, signal?: AbortSignal) {
    return this.send<{ data: { hidden: boolean } }>({
      method: 'PUT',
      url: this.apiUrl(`/tweets/${encodeURIComponent(tweetId)}/hidden`),
      headers: { authorization: `Bearer ${token}` },
      json: { hidden },
      idempotent: true,
      signal,
    });
  }
}
