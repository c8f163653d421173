/**
 * TikTok HTTP calls (Login Kit v2 + Content Posting API) and the mapping of TikTok errors to ProviderError.
 *
 * Official docs:
 * - Login Kit for Web: https://developers.tiktok.com/doc/login-kit-web
 * - OAuth token management: https://developers.tiktok.com/doc/oauth-user-access-token-management
 * - User info: https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info
 * - Get started (Direct Post): https://developers.tiktok.com/doc/content-posting-api-get-started
 * - Direct Post reference: https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
 * - Photo post reference: https://developers.tiktok.com/doc/content-posting-api-reference-photo-post
 * - Media transfer guide: https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide
 * - Query creator info: https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info
 * - Get post status: https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status
 * - Video query: https://developers.tiktok.com/doc/tiktok-api-v2-video-query
 * - Error handling: https://developers.tiktok.com/doc/tiktok-api-v2-error-handling
 */
import { type ProviderAppConfig, ProviderError, type ProviderErrorCategory } from '../provider.js';
import { type ProviderHttpResponse, providerRequest, retryAfterSeconds } from '../shared/provider-http.js';

export interface TiktokTokenResponse {
  access_token: string;
  expires_in: number;
  open_id: string;
  refresh_token: string;
  refresh_expires_in: number;
  scope: string;
  token_type: string;
}

export interface TiktokCreatorInfo {
  creator_avatar_url: string;
  creator_username: string;
  creator_nickname: string;
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
}

export interface TiktokPublishStatus {
  status: string;
  fail_reason?: string;
  publicaly_available_post_id?: Array<string | number>;
  uploaded_bytes?: number;
}

/** Error code -> category. Codes from the v2 error table, the Direct Post error table and status fail_reason values. */
const CODE_CATEGORY: Record<string, ProviderErrorCategory> = {
  access_token_invalid: 'auth_expired',
  // the docs ask to have the user authorize the missing scope: that is a reconnect
  scope_not_authorized: 'auth_expired',
  scope_permission_missed: 'auth_expired',
  auth_removed: 'auth_expired',
  invalid_grant: 'auth_expired',
  rate_limit_exceeded: 'rate_limited',
  // "the daily post cap from the API is reached for the current user": the cap frees up as posts age out
  spam_risk_too_many_posts: 'rate_limited',
  spam_risk_too_many_pending_share: 'rate_limited',
  invalid_params: 'user_content',
  invalid_param: 'user_content',
  invalid_file_upload: 'user_content',
  privacy_level_option_mismatch: 'user_content',
  spam_risk_text: 'user_content',
  spam_risk: 'user_content',
  file_format_check_failed: 'user_content',
  duration_check_failed: 'user_content',
  frame_rate_check_failed: 'user_content',
  picture_size_check_failed: 'user_content',
  invalid_request: 'user_content',
  unaudited_client_can_only_post_to_private_accounts: 'platform_rejected',
  url_ownership_unverified: 'platform_rejected',
  spam_risk_user_banned_from_posting: 'platform_rejected',
  reached_active_user_cap: 'platform_rejected',
  publish_cancelled: 'platform_rejected',
  invalid_client: 'platform_rejected',
  unauthorized_client: 'platform_rejected',
  internal_error: 'transient',
  internal: 'transient',
  video_pull_failed: 'transient',
  photo_pull_failed: 'transient',
};

/** Retry hints where TikTok answers without a Retry-After header (limits are per minute or per day). */
const DEFAULT_RETRY_AFTER: Record<string, number> = {
  rate_limit_exceeded: 60,
  spam_risk_too_many_posts: 3600,
  spam_risk_too_many_pending_share: 600,
};

export function tiktokError(init: {
  code: string;
  message: string;
  httpStatus?: number | null;
  headers?: Record<string, string>;
  body?: unknown;
  idempotent?: boolean;
}): ProviderError {
  const status = init.httpStatus ?? null;
  let category: ProviderErrorCategory | undefined = CODE_CATEGORY[init.code];
  if (!category) {
    if (status === 401) category = 'auth_expired';
    else if (status === 429) category = 'rate_limited';
    else if (status === 403) category = 'platform_rejected';
    else if (status !== null && status >= 500) category = status === 504 && init.idempotent === false ? 'unknown_outcome' : 'transient';
    else category = 'user_content';
  }
  const retryAfter = category === 'rate_limited' ? (retryAfterSeconds(init.headers ?? {}) ?? DEFAULT_RETRY_AFTER[init.code] ?? 60) : null;
  return new ProviderError({
    platform: 'tiktok',
    category,
    message: `TikTok ${init.code}: ${init.message || 'request failed'}`,
    providerCode: init.code,
    httpStatus: status,
    retryAfterSeconds: retryAfter,
    providerResponse: init.body ?? null,
  });
}

interface TiktokEnvelope<T> {
  data?: T;
  error?: { code?: string; message?: string; log_id?: string };
}

/** Throws unless the answer is 2xx with error.code "ok" (or no error object). */
function unwrap<T>(res: ProviderHttpResponse, idempotent: boolean): T {
  const body = (res.body ?? {}) as TiktokEnvelope<T>;
  const code = typeof body === 'object' ? body.error?.code : undefined;
  if (res.status >= 200 && res.status < 300 && (!code || code === 'ok')) return (body.data ?? {}) as T;
  throw tiktokError({
    code: code ?? `http_${res.status}`,
    message: body.error?.message ?? '',
    httpStatus: res.status,
    headers: res.headers,
    body: res.body,
    idempotent,
  });
}

export class TiktokClient {
  constructor(private readonly config: ProviderAppConfig) {}

  private api(path: string): string {
    return `${this.config.apiBaseUrl.replace(/\/$/, '')}${path}`;
  }

  private credentials(): { clientKey: string; clientSecret: string } {
    if (!this.config.clientId || !this.config.clientSecret) {
      throw new ProviderError({
        platform: 'tiktok',
        category: 'platform_rejected',
        message: 'TikTok client key/secret are not configured',
      });
    }
    return {
      clientKey: this.config.clientId,
      clientSecret: this.config.clientSecret,
    };
  }

  /** POST /oauth/token/ and POST /oauth/revoke/ (under the versioned API base) answer OAuth-style errors: {error, error_description, log_id}. */
  private async oauthCall(path: string, form: Record<string, string>): Promise<unknown> {
    const res = await providerRequest('tiktok', {
      method: 'POST',
      url: this.api(path),
      form: new URLSearchParams(form),
      headers: { 'cache-control': 'no-cache' },
      timeoutMs: this.config.timeoutMs,
      idempotent: true,
    });
    const body = (res.body ?? {}) as {
      error?: unknown;
      error_description?: string;
    };
    if (res.status >= 200 && res.status < 300 && (!body.error || typeof body.error !== 'string')) return res.body;
    if (typeof body.error === 'string') {
      throw tiktokError({
        code: body.error,
        message: body.error_description ?? '',
        httpStatus: res.status,
        headers: res.headers,
        body: res.body,
      });
    }
    return unwrap(res, true);
  }

  async exchangeCode(code: string, redirectUri: string, codeVerifier?: string): Promise<TiktokTokenResponse> {
    const { clientKey, clientSecret } = this.credentials();
    const form: Record<string, string> = {
      client_key: clientKey,
      client_secret: clientSecret,
      code,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
    };
    if (codeVerifier) form.code_verifier = codeVerifier;
    return (await this.oauthCall('/oauth/token/', form)) as TiktokTokenResponse;
  }

  async refresh(refreshToken: string): Promise<TiktokTokenResponse> {
    const { clientKey, clientSecret } = this.credentials();
    return (await this.oauthCall('/oauth/token/', {
      client_key: clientKey,
      client_secret: clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    })) as TiktokTokenResponse;
  }

  async revoke(token: string): Promise<void> {
    const { clientKey, clientSecret } = this.credentials();
    await this.oauthCall('/oauth/revoke/', {
      client_key: clientKey,
      client_secret: clientSecret,
      token,
    });
  }

  private async call<T>(
    token: string,
    method: 'GET' | 'POST',
    path: string,
    json: unknown,
    idempotent: boolean,
    signal?: AbortSignal,
  ): Promise<T> {
    const res = await providerRequest('tiktok', {
      // ids are int64 JSON numbers in some answers (publicaly_available_post_id): keep their digits exact
      exactIntegers: true,
      method,
      url: this.api(path),
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json; charset=UTF-8',
      },
      json,
      timeoutMs: this.config.timeoutMs,
      signal,
      idempotent,
    });
    return unwrap<T>(res, idempotent);
  }

  async userInfo(token: string, fields: string[], signal?: AbortSignal) {
    const path = `/user/info/?fields=${fields.join(',')}`;
    return this.call<{ user?: Record<string, string> }>(token, 'GET', path, undefined, true, signal);
  }

  creatorInfo(token: string, signal?: AbortSignal): Promise<TiktokCreatorInfo> {
    return this.call<TiktokCreatorInfo>(token, 'POST', '/post/publish/creator_info/query/', {}, true, signal);
  }

  /** Direct Post init: creates a publish; a lost answer leaves an unknown outcome. */
  initVideo(token: string, body: unknown, signal?: AbortSignal) {
    return this.call<{ publish_id: string; upload_url?: string }>(token, 'POST', '/post/publish/video/init/', body, false, signal);
  }

  initContent(token: string, body: unknown, signal?: AbortSignal) {
    return this.call<{ publish_id: string }>(token, 'POST', '/post/publish/content/init/', body, false, signal);
  }

  /**
   * PUT one chunk to upload_url. The final chunk completes the upload and starts the post, so it is not
   * idempotent: a lost answer there means the post may exist.
   */
  async uploadChunk(input: {
    uploadUrl: string;
    bytes: Buffer;
    first: number;
    total: number;
    mimeType: string;
    final: boolean;
    signal?: AbortSignal;
  }): Promise<void> {
    const last = input.first + input.bytes.length - 1;
    const res = await providerRequest('tiktok', {
      method: 'PUT',
      url: input.uploadUrl,
      headers: {
        'content-type': input.mimeType,
        'content-length': String(input.bytes.length),
        'content-range': `bytes ${input.first}-${last}/${input.total}`,
      },
      body: input.bytes,
      timeoutMs: this.config.timeoutMs,
      signal: input.signal,
      idempotent: !input.final,
    });
    if (res.status === 201 || res.status === 206 || (res.status >= 200 && res.status < 300)) return;
    unwrap(res, !input.final);
  }

  statusFetch(token: string, publishId: string, signal?: AbortSignal): Promise<TiktokPublishStatus> {
    return this.call<TiktokPublishStatus>(token, 'POST', '/post/publish/status/fetch/', { publish_id: publishId }, true, signal);
  }

  /** One page of the creator's public videos, newest first (`cursor`: ms, the create time to list before). */
  async listVideos(token: string, cursor: number | undefined, fields: string[], signal?: AbortSignal) {
    const path = `/video/list/?fields=${fields.join(',')}`;
    return this.call<{ videos?: Array<Record<string, unknown>>; cursor?: number; has_more?: boolean }>(
      token,
      'POST',
      path,
      { max_count: 20, ...(cursor !== undefined ? { cursor } : {}) },
      true,
      signal,
    );
  }

  async queryVideos(token: string, videoIds: string[], fields: string[], signal?: AbortSignal) {
    const path = `/video/query/?fields=${fields.join(',')}`;
    return this.call<{ videos?: Array<Record<string, unknown>> }>(token, 'POST', path, { filters: { video_ids: videoIds } }, true, signal);
  }
}
