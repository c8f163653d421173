/**
 * HTTP calls to Google OAuth 2.0 and the YouTube Data API v3. Every non-2xx answer goes through the
 * mappers in youtube.errors.ts, so each failure leaves here as a categorised ProviderError.
 *
 * Official references:
 * - https://developers.google.com/identity/protocols/oauth2/web-server (authorize, token, refresh, revoke, PKCE)
 * - https://developers.google.com/youtube/v3/docs/videos/insert
 * - https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol
 * - https://developers.google.com/youtube/v3/docs/videos/list
 * - https://developers.google.com/youtube/v3/docs/channels/list
 * - https://developers.google.com/youtube/v3/docs/commentThreads/insert , /commentThreads/list , /comments/insert
 * - https://developers.google.com/youtube/v3/docs/videoCategories/list
 * - https://developers.google.com/youtube/v3/docs/errors (error body, reasons, quota)
 * - https://developers.google.com/youtube/v3/getting-started#quota (daily quota resets at midnight Pacific Time)
 */
import { type ProviderAppConfig, ProviderError } from '../provider.js';
import { requireAccessTokenAnswer } from '../shared/oauth-requests.js';
import { type ProviderHttpResponse, providerRequest } from '../shared/provider-http.js';
import { mapGoogleOAuthError, mapYoutubeApiError } from './youtube.errors.js';

const PLATFORM = 'youtube' as const;
const PRODUCTION_AUTH_HOST = 'accounts.google.com';

export interface GoogleTokenResponse {
  access_token: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
}

export interface YoutubeVideoResource {
  id: string;
  snippet?: {
    title?: string;
    description?: string;
    channelId?: string;
    publishedAt?: string;
  };
  status?: {
    uploadStatus?: string;
    privacyStatus?: string;
    failureReason?: string;
    rejectionReason?: string;
  };
  processingDetails?: { processingStatus?: string };
  statistics?: Record<string, string>;
}

function ensureOk(res: ProviderHttpResponse, operation: string): ProviderHttpResponse {
  if (res.status >= 200 && res.status < 300) return res;
  throw mapYoutubeApiError(res, operation);
}

export class YoutubeClient {
  constructor(private readonly config: ProviderAppConfig) {}

  private get apiBase(): string {
    return this.config.apiBaseUrl.replace(/\/+$/, '');
  }

  authorizeEndpoint(): string {
    return `${this.config.authBaseUrl.replace(/\/+$/, '')}/o/oauth2/v2/auth`;
  }

  /**
   * Google serves the consent screen on accounts.google.com but the token and revoke endpoints on
   * oauth2.googleapis.com; any other auth base (a simulator) serves all three under one prefix.
   */
  private oauthEndpoint(name: 'token' | 'revoke'): string {
    const base = this.config.authBaseUrl.replace(/\/+$/, '');
    if (new URL(base).hostname === PRODUCTION_AUTH_HOST) return `https://oauth2.googleapis.com/${name}`;
    return `${base}/${name}`;
  }

  async token(form: URLSearchParams, operation: 'exchange' | 'refresh'): Promise<GoogleTokenResponse> {
    const res = await providerRequest(PLATFORM, {
      method: 'POST',
      url: this.oauthEndpoint('token'),
      form,
      timeoutMs: this.config.timeoutMs,
      idempotent: true,
    });
    if (res.status !== 200) throw mapGoogleOAuthError(res, operation);
    return requireAccessTokenAnswer(PLATFORM, res.body as GoogleTokenResponse, 'google');
  }

  /** Revokes a token (and with it the grant). An already invalid token counts as revoked. */
  async revoke(token: string): Promise<void> {
    const res = await providerRequest(PLATFORM, {
      method: 'POST',
      url: this.oauthEndpoint('revoke'),
      form: new URLSearchParams({ token }),
      timeoutMs: this.config.timeoutMs,
      idempotent: true,
    });
    if (res.status === 200) return;
    const err = mapGoogleOAuthError(res, 'revoke');
    if (err.category === 'auth_expired') return;
    throw err;
  }

  private async get(accessToken: string, path: string, params: Record<string, string>, operation: string, signal?: AbortSignal) {
    const url = `${this.apiBase}/${path}?${new URLSearchParams(params)}`;
    const res = await providerRequest(PLATFORM, {
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${accessToken}` },
      timeoutMs: this.config.timeoutMs,
      signal,
      idempotent: true,
    });
    return ensureOk(res, operation).body as Record<string, unknown>;
  }

  async listMyChannels(accessToken: string, signal?: AbortSignal) {
    const body = await this.get(accessToken, 'channels', { part: 'snippet,status', mine: 'true' }, 'channels.list', signal);
    return (body.items ?? []) as Array<{
      id: string;
      snippet?: {
        title?: string;
        customUrl?: string;
        thumbnails?: Record<string, { url?: string }>;
      };
    }>;
  }

  /** The channel's uploads playlist (channels.list part=contentDetails, mine=true): every video it uploaded. */
  async uploadsPlaylistId(accessToken: string, signal?: AbortSignal): Promise<string | null> {
    const body = await this.get(accessToken, 'channels', { part: 'contentDetails', mine: 'true' }, 'channels.list', signal);
    const [channel] = (body.items ?? []) as Array<{ contentDetails?: { relatedPlaylists?: { uploads?: string } } }>;
    return channel?.contentDetails?.relatedPlaylists?.uploads ?? null;
  }

  /** One page (up to 50) of a playlist's items (playlistItems.list part=snippet,contentDetails). */
  async listPlaylistItems(accessToken: string, playlistId: string, pageToken: string | undefined, signal?: AbortSignal) {
    const params: Record<string, string> = { part: 'snippet,contentDetails', playlistId, maxResults: '50' };
    if (pageToken) params.pageToken = pageToken;
    const body = await this.get(accessToken, 'playlistItems', params, 'playlistItems.list', signal);
    return body as {
      items?: Array<{
        snippet?: { title?: string; description?: string; publishedAt?: string };
        contentDetails?: { videoId?: string; videoPublishedAt?: string };
      }>;
      nextPageToken?: string;
    };
  }

  /** Step 1 of the resumable protocol: send the metadata, receive the session URI in Location. */
  async startResumableUpload(
    accessToken: string,
    metadata: Record<string, unknown>,
    media: {
      contentLength: number;
      contentType: string;
      notifySubscribers?: boolean;
    },
    signal?: AbortSignal,
  ): Promise<string> {
    const params = new URLSearchParams({
      uploadType: 'resumable',
      part: 'snippet,status',
    });
    if (media.notifySubscribers !== undefined) params.set('notifySubscribers', String(media.notifySubscribers));
    const res = await providerRequest(PLATFORM, {
      method: 'POST',
      url: `${this.config.uploadBaseUrl.replace(/\/+$/, '')}/videos?${params}`,
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(media.contentLength),
        'x-upload-content-type': media.contentType,
      },
      json: metadata,
      timeoutMs: this.config.timeoutMs,
      signal,
      // opening a session creates no video; repeating it is harmless
      idempotent: true,
    });
    ensureOk(res, 'videos.insert');
    const location = res.headers.location;
    if (!location) {
      throw new ProviderError({
        platform: PLATFORM,
        category: 'transient',
        message: 'resumable session answer has no Location header',
      });
    }
    return location;
  }

  /** Step 2: PUT the bytes to the session URI; the answer is the video resource. */
  async uploadVideoBytes(
    accessToken: string,
    sessionUrl: string,
    body: AsyncIterable<Uint8Array>,
    media: { contentLength: number; contentType: string },
    signal?: AbortSignal,
  ): Promise<YoutubeVideoResource> {
    const res = await providerRequest(PLATFORM, {
      method: 'PUT',
      url: sessionUrl,
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': media.contentType,
        'content-length': String(media.contentLength),
      },
      body,
      // sending the bytes takes time: allow for a slow 1 MiB/s link on top of the API timeout
      timeoutMs: this.config.timeoutMs + Math.ceil(media.contentLength / 1048.576),
      signal,
      // completing the upload creates the video: a lost answer is an unknown outcome
      idempotent: false,
    });
    return ensureOk(res, 'videos.insert upload').body as YoutubeVideoResource;
  }

  async listVideos(accessToken: string, ids: string[], parts: string, signal?: AbortSignal): Promise<YoutubeVideoResource[]> {
    const body = await this.get(accessToken, 'videos', { part: parts, id: ids.join(',') }, 'videos.list', signal);
    return (body.items ?? []) as YoutubeVideoResource[];
  }

  private async post(accessToken: string, path: string, json: unknown, operation: string, signal?: AbortSignal) {
    const res = await providerRequest(PLATFORM, {
      method: 'POST',
      url: `${this.apiBase}/${path}`,
      headers: { authorization: `Bearer ${accessToken}` },
      json,
      timeoutMs: this.config.timeoutMs,
      signal,
      idempotent: false,
    });
    return ensureOk(res, operation).body as {
      id: string;
      snippet?: Record<string, unknown>;
    };
  }

  insertCommentThread(accessToken: string, videoId: string, text: string, signal?: AbortSignal) {
    return this.post(
      accessToken,
      'commentThreads?part=snippet',
      {
        snippet: {
          videoId,
          topLevelComment: { snippet: { textOriginal: text } },
        },
      },
      'commentThreads.insert',
      signal,
    );
  }

  insertReply(accessToken: string, parentId: string, text: string, signal?: AbortSignal) {
    return this.post(accessToken, 'comments?part=snippet', { snippet: { parentId, textOriginal: text } }, 'comments.insert', signal);
  }

  async listCommentThreads(accessToken: string, videoId: string, maxResults: number, signal?: AbortSignal) {
    const params = {
      part: 'snippet,replies',
      videoId,
      maxResults: String(maxResults),
      order: 'time',
      textFormat: 'plainText',
    };
    const body = await this.get(accessToken, 'commentThreads', params, 'commentThreads.list', signal);
    return (body.items ?? []) as YoutubeCommentThread[];
  }

  async listVideoCategories(accessToken: string, regionCode: string, hl: string | undefined, signal?: AbortSignal) {
    const params: Record<string, string> = { part: 'snippet', regionCode };
    if (hl) params.hl = hl;
    const body = await this.get(accessToken, 'videoCategories', params, 'videoCategories.list', signal);
    return (body.items ?? []) as Array<{
      id: string;
      snippet?: { title?: string; assignable?: boolean };
    }>;
  }
}

export interface YoutubeCommentSnippet {
  textOriginal?: string;
  textDisplay?: string;
  authorDisplayName?: string;
  authorChannelUrl?: string;
  parentId?: string;
  likeCount?: number;
  publishedAt?: string;
}

interface YoutubeCommentThread {
  id: string;
  snippet?: {
    topLevelComment?: { id: string; snippet?: YoutubeCommentSnippet };
    totalReplyCount?: number;
  };
  replies?: {
    comments?: Array<{ id: string; snippet?: YoutubeCommentSnippet }>;
  };
}
