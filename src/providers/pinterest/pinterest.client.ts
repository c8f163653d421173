/**
 * HTTP calls to the Pinterest API v5. Every non-2xx answer goes through pinterest.errors.ts, so each
 * failure leaves here as a categorised ProviderError.
 *
 * Official references:
 * - https://developers.pinterest.com/docs/getting-started/set-up-authentication-and-authorization/
 *   (https://www.pinterest.com/oauth/ consent, POST /v5/oauth/token with HTTP Basic client auth)
 * - https://developers.pinterest.com/docs/api/v5/oauth-token
 * - https://developers.pinterest.com/docs/api/v5/user_account-get
 * - https://developers.pinterest.com/docs/api/v5/boards-list
 * - https://developers.pinterest.com/docs/api/v5/pins-create , /pins-get , /pins-analytics
 * - https://developers.pinterest.com/docs/api/v5/media-create , /media-get
 * - https://developers.pinterest.com/docs/work-with-organic-content-and-users/create-boards-and-pins/
 *   (video Pins: register media, POST the file to upload_url with upload_parameters, poll until
 *   succeeded, then create the Pin with media_source video_id)
 */
import { randomBytes } from 'node:crypto';
import { type ProviderAppConfig, ProviderError } from '../provider.js';
import { requireAccessTokenAnswer } from '../shared/oauth-requests.js';
import { type ProviderHttpResponse, providerRequest } from '../shared/provider-http.js';
import { mapPinterestApiError, mapPinterestOAuthError, mapPinterestUploadError } from './pinterest.errors.js';

const PLATFORM = 'pinterest' as const;

export interface PinterestTokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  expires_in?: number;
  refresh_token_expires_in?: number;
  scope?: string;
}

export interface PinterestPin {
  id: string;
  board_id?: string;
  title?: string | null;
  description?: string | null;
  link?: string | null;
}

export interface PinterestMediaUpload {
  media_id: string;
  upload_url: string;
  upload_parameters: Record<string, string>;
}

export interface PinterestBoard {
  id: string;
  name?: string;
  description?: string;
  privacy?: string;
  pin_count?: number;
}

function ensureOk(res: ProviderHttpResponse, operation: string): ProviderHttpResponse {
  if (res.status >= 200 && res.status < 300) return res;
  throw mapPinterestApiError(res, operation);
}

export class PinterestClient {
  constructor(private readonly config: ProviderAppConfig) {}

  private url(path: string, params?: Record<string, string>): string {
    const base = `${this.config.apiBaseUrl.replace(/\/+$/, '')}/${path}`;
    return params ? `${base}?${new URLSearchParams(params)}` : base;
  }

  authorizeEndpoint(): string {
    return `${this.config.authBaseUrl.replace(/\/+$/, '')}/oauth/`;
  }

  async token(form: URLSearchParams, operation: 'exchange' | 'refresh'): Promise<PinterestTokenResponse> {
    if (!this.config.clientId || !this.config.clientSecret) {
      throw new ProviderError({
        platform: PLATFORM,
        category: 'platform_rejected',
        message: 'pinterest app credentials are not configured',
      });
    }
    const basic = Buffer.from(`${this.config.clientId}:${this.config.clientSecret}`).toString('base64');
    const res = await providerRequest(PLATFORM, {
      method: 'POST',
      url: this.url('oauth/token'),
      headers: { authorization: `Basic ${basic}` },
      form,
      timeoutMs: this.config.timeoutMs,
      idempotent: true,
    });
    if (res.status !== 200) throw mapPinterestOAuthError(res, operation);
    return requireAccessTokenAnswer(PLATFORM, res.body as PinterestTokenResponse, 'pinterest');
  }

  private async call(
    accessToken: string,
    init: {
      method: 'GET' | 'POST';
      path: string;
      params?: Record<string, string>;
      json?: unknown;
      idempotent: boolean;
    },
    operation: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const res = await providerRequest(PLATFORM, {
      method: init.method,
      url: this.url(init.path, init.params),
      headers: { authorization: `Bearer ${accessToken}` },
      json: init.json,
      timeoutMs: this.config.timeoutMs,
      signal,
      idempotent: init.idempotent,
    });
    return ensureOk(res, operation).body;
  }

  userAccount(accessToken: string, signal?: AbortSignal) {
    return this.call(accessToken, { method: 'GET', path: 'user_account', idempotent: true }, 'user_account.get', signal) as Promise<{
      id?: string;
      username?: string;
      business_name?: string | null;
      profile_image?: string | null;
    }>;
  }

  async listBoards(accessToken: string, maxItems: number, signal?: AbortSignal): Promise<PinterestBoard[]> {
    const boards: PinterestBoard[] = [];
    let bookmark: string | null = null;
    do {
      const params: Record<string, string> = {
        page_size: String(Math.min(250, maxItems - boards.length)),
      };
      if (bookmark) params.bookmark = bookmark;
      const page = (await this.call(accessToken, { method: 'GET', path: 'boards', params, idempotent: true }, 'boards.list', signal)) as {
        items?: PinterestBoard[];
        bookmark?: string | null;
      };
      boards.push(...(page.items ?? []));
      bookmark = page.bookmark ?? null;
    } while (bookmark && boards.length < maxItems);
    return boards.slice(0, maxItems);
  }

  /** One page of the account's Pins (GET /v5/pins, bookmark pagination). */
  listPins(accessToken: string, bookmark: string | undefined, signal?: AbortSignal) {
    const params: Record<string, string> = { page_size: '100' };
    if (bookmark) params.bookmark = bookmark;
    return this.call(accessToken, { method: 'GET', path: 'pins', params, idempotent: true }, 'pins.list', signal) as Promise<{
      items?: Array<PinterestPin & { created_at?: string; description?: string | null }>;
      bookmark?: string | null;
    }>;
  }

  /** Creates the Pin. Not idempotent: a lost answer may mean the Pin exists. */
  createPin(accessToken: string, pin: Record<string, unknown>, signal?: AbortSignal): Promise<PinterestPin> {
    return this.call(
      accessToken,
      { method: 'POST', path: 'pins', json: pin, idempotent: false },
      'pins.create',
      signal,
    ) as Promise<PinterestPin>;
  }

  getPin(accessToken: string, pinId: string, signal?: AbortSignal): Promise<PinterestPin> {
    const path = `pins/${encodeURIComponent(pinId)}`;
    return this.call(accessToken, { method: 'GET', path, idempotent: true }, 'pins.get', signal) as Promise<PinterestPin>;
  }

  async pinAnalytics(accessToken: string, pinId: string, metricTypes: string[], signal?: AbortSignal) {
    const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
    // Pinterest keeps 90 days of Pin analytics
    const params = {
      start_date: day(89),
      end_date: day(0),
      metric_types: metricTypes.join(','),
    };
    const path = `pins/${encodeURIComponent(pinId)}/analytics`;
    return (await this.call(accessToken, { method: 'GET', path, params, idempotent: true }, 'pins.analytics', signal)) as {
      all?: {
        summary_metrics?: Record<string, number>;
        lifetime_metrics?: Record<string, number>;
      };
    };
  }

  /** Registers a video upload; nothing is published, so repeating it is harmless. */
  registerMedia(accessToken: string, signal?: AbortSignal): Promise<PinterestMediaUpload> {
    return this.call(
      accessToken,
      {
        method: 'POST',
        path: 'media',
        json: { media_type: 'video' },
        idempotent: true,
      },
      'media.create',
      signal,
    ) as Promise<PinterestMediaUpload>;
  }

  mediaStatus(accessToken: string, mediaId: string, signal?: AbortSignal) {
    const path = `media/${encodeURIComponent(mediaId)}`;
    return this.call(accessToken, { method: 'GET', path, idempotent: true }, 'media.get', signal) as Promise<{
      media_id: string;
      status: string;
    }>;
  }

  /** POSTs the file to upload_url as multipart/form-data with every upload_parameters field first. */
  async uploadMedia(
    upload: PinterestMediaUpload,
    file: {
      bytes: number;
      mimeType: string;
      open(): Promise<AsyncIterable<Uint8Array>>;
    },
    signal?: AbortSignal,
  ): Promise<void> {
    const boundary = `----pin${randomBytes(12).toString('hex')}`;
    const fields = Object.entries(upload.upload_parameters)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('');
    const head = Buffer.from(
      `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video"\r\nContent-Type: ${file.mimeType}\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const source = await file.open();
    async function* body() {
      yield head;
      yield* source;
      yield tail;
    }
    const res = await providerRequest(PLATFORM, {
      method: 'POST',
      url: upload.upload_url,
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + file.bytes + tail.length),
      },
      body: body(),
      // sending the bytes takes time: allow for a slow 1 MiB/s link on top of the API timeout
      timeoutMs: this.config.timeoutMs + Math.ceil(file.bytes / 1048.576),
      signal,
      // the object key is fixed by the registration: uploading again replaces the same file
      idempotent: true,
    });
    if (res.status < 200 || res.status >= 300) throw mapPinterestUploadError(res);
  }
}
