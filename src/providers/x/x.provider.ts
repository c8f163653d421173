/**
 * X adapter: OAuth 2.0 with PKCE, /2/users/me, posts with chunked media upload (publishing waits for media
 * processing through pollPublish), replies as comments and first comment, recent-search conversations,
 * public metrics, and the mentionSearch / communitySearch tools. Doc links live in x.client.ts.
 */
import {
  type OAuthTokens,
  type ProviderAppConfig,
  type ProviderCallContext,
  ProviderError,
  type PublishRequest,
  type PublishResult,
  type SocialProvider,
} from '../provider.js';
import { requireRefreshToken } from '../shared/oauth-requests.js';
import { XClient, type XTokenResponse } from './x.client.js';
import { mediaFailed, mediaStatus, uploadMedia } from './x.media.js';
import { fetchXPostMetrics } from './x.metrics.js'; // analytics
import { findRecentTweet, listConversation, runXTool } from './x.reads.js';
import { X_CAPABILITY, X_SCOPES, X_VALIDATION_RULES } from './x.rules.js';

export interface XProviderOptions {
  /** lower bound for the wait the engine is told before polling media processing */
  minPollAfterMs?: number;
}

interface PendingTweet {
  body: Record<string, unknown>;
  mediaIds: string[];
}

const encodePoll = (p: PendingTweet) => Buffer.from(JSON.stringify(p)).toString('base64url');
function decodePoll(token: string): PendingTweet {
  try {
    const p = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PendingTweet;
    if (p && typeof p.body === 'object' && Array.isArray(p.mediaIds)) return p;
  } catch {
    // fall through
  }
  throw new ProviderError({
    platform: 'x',
    category: 'user_content',
    message: 'unreadable X poll token',
    providerCode: 'invalid_poll_token',
  });
}

function toTokens(t: XTokenResponse, now = Date.now()): OAuthTokens {
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? null,
    expiresAt: t.expires_in ? new Date(now + t.expires_in * 1000) : null,
    refreshTokenExpiresAt: null,
    scopes: (t.scope ?? '').split(' ').filter(Boolean),
    extra: {},
  };
}

function userContent(message: string, providerCode: string): ProviderError {
  return new ProviderError({
    platform: 'x',
    category: 'user_content',
    message,
    providerCode,
  });
}

/** X media combinations: up to 4 images, or one GIF, or one video, never mixed. */
function checkMedia(request: PublishRequest): void {
  const kinds = new Set(request.media.map((m) => m.kind));
  if (kinds.size > 1) throw userContent('X posts cannot mix images, GIFs and videos', 'media_mixed');
  const n = request.media.length;
  if (kinds.has('image') && n > 4) throw userContent('X posts take at most 4 images', 'too_many_media');
  if ((kinds.has('video') || kinds.has('gif')) && n > 1) throw userContent('X posts take one video or one GIF', 'too_many_media');
  if (n === 0 && request.text.trim() === '') throw userContent('an X post needs text or media', 'empty_post');
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

export function createXProvider(config: ProviderAppConfig, options: XProviderOptions = {}): SocialProvider {
  const client = new XClient(config);
  const minPollAfterMs = options.minPollAfterMs ?? 1000;

  /** handles by account id, so building post URLs does not spend the small /2/users/me budget each time */
  const handles = new Map<string, string>();

  async function handleOf(ctx: ProviderCallContext): Promise<string | null> {
    const fromSettings = str(ctx.channelSettings.username) ?? str(ctx.channelSettings.handle);
    if (fromSettings) return fromSettings.replace(/^@/, '');
    const cached = handles.get(ctx.externalAccountId);
    if (cached) return cached;
    try {
      const me = await client.get<{
        data?: { id?: string; username?: string };
      }>(ctx.accessToken, '/users/me', {}, ctx.signal);
      const username = me.data?.username ?? null;
      if (username && me.data?.id && me.data.id === ctx.externalAccountId) {
        if (handles.size >= 10_000) handles.clear();
        handles.set(me.data.id, username);
      }
      return username;
    } catch {
      return null;
    }
  }

  const postUrl = (handle: string | null, id: string) =>
    handle ? `https://x.com/${handle}/status/${id}` : `https://x.com/i/web/status/${id}`;

  async function postTweet(ctx: ProviderCallContext, pending: PendingTweet): Promise<PublishResult> {
    const body = { ...pending.body };
    if (pending.mediaIds.length > 0) body.media = { media_ids: pending.mediaIds };
    const created = await client.createTweet(ctx.accessToken, body, ctx.signal);
    const id = created.data.id;
    // the post exists from here on: a failed handle lookup only degrades the URL
    return {
      status: 'published',
      providerPostId: id,
      url: postUrl(await handleOf(ctx), id),
    };
  }

  const provider: SocialProvider = {
    platform: 'x',
    capability: X_CAPABILITY,
    rules: X_VALIDATION_RULES,
    oauth: {
      supportsPkce: true,
      supportsRefresh: true,
      supportsRevoke: true,
      defaultScopes: X_SCOPES,
      authorizationUrl(input) {
        if (!input.codeChallenge) throw new Error('X authorization requires a PKCE S256 code challenge');
        const url = new URL(`${config.authBaseUrl.replace(/\/$/, '')}/i/oauth2/authorize`);
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('client_id', config.clientId ?? '');
        url.searchParams.set('redirect_uri', input.redirectUri);
        url.searchParams.set('scope', input.scopes.join(' '));
        url.searchParams.set('state', input.state);
        url.searchParams.set('code_challenge', input.codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
        return url.toString();
      },
      async exchangeCode(input) {
        if (!input.codeVerifier) throw userContent('X code exchange needs the PKCE code_verifier', 'missing_code_verifier');
        return toTokens(await client.exchangeCode(input.code, input.redirectUri, input.codeVerifier));
      },
      async refresh(input) {
        const refreshToken = requireRefreshToken('x', input.refreshToken, 'no X refresh token stored (offline.access not granted)');
        return toTokens(await client.refresh(refreshToken));
      },
      async revoke(input) {
        await client.revoke(input.accessToken);
      },
    },

    async lookupAccounts({ tokens }) {
      const me = await client.get<{
        data: {
          id: string;
          name: string;
          username: string;
          profile_image_url?: string;
        };
      }>(tokens.accessToken, '/users/me', {
        'user.fields': 'profile_image_url,username,name',
      });
      handles.set(me.data.id, me.data.username);
      return [
        {
          externalAccountId: me.data.id,
          displayName: me.data.name,
          handle: me.data.username,
          avatarUrl: me.data.profile_image_url ?? null,
        },
      ];
    },

    async publish(ctx, request) {
      checkMedia(request);
      const s = request.settings;
      const body: Record<string, unknown> = {};
      if (request.text !== '') body.text = request.text;
      const replyTo = str(s.in_reply_to_tweet_id);
      if (replyTo) body.reply = { in_reply_to_tweet_id: replyTo };
      if (str(s.quote_tweet_id)) body.quote_tweet_id = s.quote_tweet_id;
      if (str(s.reply_settings)) body.reply_settings = s.reply_settings;
      if (str(s.community_id)) body.community_id = s.community_id;
      const uploaded = [];
      for (const item of request.media) uploaded.push(await uploadMedia(client, ctx.accessToken, item, ctx.signal));
      const pending: PendingTweet = {
        body,
        mediaIds: uploaded.map((u) => u.mediaId),
      };
      const processing = uploaded.filter((u) => u.processing);
      if (processing.length > 0) {
        const waitSecs = Math.max(...processing.map((u) => u.processing?.check_after_secs ?? 1));
        return {
          status: 'processing',
          pollToken: encodePoll(pending),
          pollAfterMs: Math.max(minPollAfterMs, waitSecs * 1000),
        };
      }
      return postTweet(ctx, pending);
    },

    async pollPublish(ctx, pollToken) {
      const pending = decodePoll(pollToken);
      let waitSecs = 0;
      let stillProcessing = false;
      for (const mediaId of pending.mediaIds) {
        const info = await mediaStatus(client, ctx.accessToken, mediaId, ctx.signal);
        if (!info || info.state === 'succeeded') continue;
        if (info.state === 'failed') throw mediaFailed(mediaId, info);
        stillProcessing = true;
        waitSecs = Math.max(waitSecs, info.check_after_secs ?? 1);
      }
      if (stillProcessing)
        return {
          status: 'processing',
          pollToken,
          pollAfterMs: Math.max(minPollAfterMs, waitSecs * 1000),
        };
      return postTweet(ctx, pending);
    },

    async findRecentPost(ctx, input) {
      const handle = await handleOf(ctx).catch(() => null);
      return findRecentTweet(client, ctx, input, (id) => postUrl(handle, id));
    },

    async fetchPermalink(ctx, providerPostId) {
      const res = await client.get<{
        data?: { id: string };
        includes?: { users?: Array<{ username: string }> };
      }>(
        ctx.accessToken,
        `/tweets/${encodeURIComponent(providerPostId)}`,
        { expansions: 'author_id', 'user.fields': 'username' },
        ctx.signal,
      );
      if (!res.data) return null;
      return postUrl(res.includes?.users?.[0]?.username ?? null, res.data.id);
    },

    async postComment(ctx, input) {
      const text = input.text;
      const created = await client.createTweet(
        ctx.accessToken,
        {
          text,
          reply: {
            in_reply_to_tweet_id: input.replyToCommentId ?? input.providerPostId,
          },
        },
        ctx.signal,
      );
      return { providerCommentId: created.data.id };
    },

    listComments(ctx, input) {
      return listConversation(client, ctx, input);
    },

    async hideComment(ctx, input) {
      await client.hideReply(ctx.accessToken, input.providerCommentId, input.hidden, ctx.signal);
    },

    async fetchPostAnalytics(ctx, input) {
      const res = await client.get<{
        data?: { public_metrics?: Record<string, number> };
        errors?: unknown[];
      }>(ctx.accessToken, `/tweets/${encodeURIComponent(input.providerPostId)}`, { 'tweet.fields': 'public_metrics' }, ctx.signal);
      if (!res.data) throw userContent(`post ${input.providerPostId} not found`, 'resource-not-found');
      const m = res.data.public_metrics ?? {};
      // a field X did not return stays absent (the snapshot shows it as null, not 0)
      const metrics: Record<string, number> = {};
      for (const [from, to] of [
        ['impression_count', 'impressions'],
        ['like_count', 'likes'],
        ['reply_count', 'replies'],
        ['retweet_count', 'reposts'],
        ['quote_count', 'quotes'],
        ['bookmark_count', 'bookmarks'],
      ] as const) {
        if (typeof m[from] === 'number') metrics[to] = m[from];
      }
      return { capturedAt: new Date().toISOString(), metrics };
    },

    runTool(ctx, toolName, input) {
      return runXTool(client, ctx, toolName, input);
    },

    fetchPostMetrics: (ctx, input) => fetchXPostMetrics(client, ctx, input), // analytics
  };
  return provider;
}
