/**
 * YouTube adapter: Google OAuth 2.0 (offline access, PKCE), channels.list for the account, and
 * videos.insert through the resumable upload protocol. YouTube keeps processing a video after the
 * upload completes, so publish answers `processing` until status.uploadStatus is `processed`.
 */
import type { ProviderAppConfig, ProviderComment, SocialProvider } from '../provider.js';
import { authorizeQuery } from '../shared/oauth-requests.js';
import { findInListing } from '../shared/recent-posts.js';
import { YoutubeClient } from './youtube.client.js';
import { fail, str, toComment, toTokens, videoResult, youtubeWatchUrl } from './youtube.mapper.js';
import { fetchYoutubePostMetrics } from './youtube.metrics.js'; // analytics
import { YOUTUBE_PRIVACY_STATUSES, YOUTUBE_SCOPES, youtubeCapability, youtubeValidationRules } from './youtube.rules.js';

export function createYoutubeProvider(config: ProviderAppConfig): SocialProvider {
  const client = new YoutubeClient(config);

  function appCredentials(): { clientId: string; clientSecret: string } {
    if (!config.clientId || !config.clientSecret) fail('platform_rejected', 'youtube app credentials are not configured');
    return { clientId: config.clientId, clientSecret: config.clientSecret };
  }

  return {
    platform: 'youtube',
    capability: youtubeCapability,
    rules: youtubeValidationRules,

    oauth: {
      supportsPkce: true,
      supportsRefresh: true,
      supportsRevoke: true,
      defaultScopes: YOUTUBE_SCOPES,
      authorizationUrl(input) {
        if (!config.clientId) fail('platform_rejected', 'youtube client id is not configured');
        // offline + consent: Google returns a refresh token on every connect, not only the first
        const params = authorizeQuery(config.clientId, input, YOUTUBE_SCOPES, ' ', {
          access_type: 'offline',
          prompt: 'consent',
          include_granted_scopes: 'true',
        });
        if (input.codeChallenge) {
          params.set('code_challenge', input.codeChallenge);
          params.set('code_challenge_method', 'S256');
        }
        return `${client.authorizeEndpoint()}?${params}`;
      },
      async exchangeCode(input) {
        const { clientId, clientSecret } = appCredentials();
        const form = new URLSearchParams({
          code: input.code,
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uri: input.redirectUri,
          grant_type: 'authorization_code',
        });
        if (input.codeVerifier) form.set('code_verifier', input.codeVerifier);
        return toTokens(await client.token(form, 'exchange'), null);
      },
      async refresh(input) {
        if (!input.refreshToken) fail('auth_expired', 'youtube channel has no refresh token; connect it again');
        const { clientId, clientSecret } = appCredentials();
        const form = new URLSearchParams({
          client_id: clientId,
          client_secret: clientSecret,
          grant_type: 'refresh_token',
          refresh_token: input.refreshToken,
        });
        return toTokens(await client.token(form, 'refresh'), input.refreshToken);
      },
      async revoke(input) {
        // revoking the access token revokes the whole grant, refresh token included
        await client.revoke(input.accessToken);
      },
    },

    async lookupAccounts({ tokens }) {
      const channels = await client.listMyChannels(tokens.accessToken);
      return channels.map((c) => ({
        externalAccountId: c.id,
        displayName: c.snippet?.title ?? c.id,
        handle: c.snippet?.customUrl ?? null,
        avatarUrl: c.snippet?.thumbnails?.default?.url ?? null,
      }));
    },

    async publish(ctx, request) {
      const [video, ...rest] = request.media;
      if (!video || rest.length > 0 || video.kind !== 'video') fail('user_content', 'youtube needs exactly one video');
      const title = str(request.settings.title);
      if (!title) fail('user_content', 'youtube needs a title');
      const privacy = str(request.settings.privacyStatus) ?? 'private';
      if (!(YOUTUBE_PRIVACY_STATUSES as readonly string[]).includes(privacy)) {
        fail('user_content', `youtube privacyStatus must be one of ${YOUTUBE_PRIVACY_STATUSES.join(', ')}`);
      }
      const snippet: Record<string, unknown> = {
        title,
        description: request.text,
      };
      const categoryId = str(request.settings.categoryId);
      if (categoryId) snippet.categoryId = categoryId;
      const tags = str(request.settings.tags);
      if (tags)
        snippet.tags = tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean);
      const status: Record<string, unknown> = { privacyStatus: privacy };
      if (typeof request.settings.madeForKids === 'boolean') status.selfDeclaredMadeForKids = request.settings.madeForKids;

      const media = {
        contentLength: video.bytes,
        contentType: video.mimeType || 'video/*',
      };
      const notify = request.settings.notifySubscribers;
      const session = await client.startResumableUpload(
        ctx.accessToken,
        { snippet, status },
        {
          ...media,
          notifySubscribers: typeof notify === 'boolean' ? notify : undefined,
        },
        ctx.signal,
      );
      const uploaded = await client.uploadVideoBytes(ctx.accessToken, session, await video.open(), media, ctx.signal);
      return videoResult(uploaded);
    },

    async pollPublish(ctx, pollToken) {
      const [video] = await client.listVideos(ctx.accessToken, [pollToken], 'status,processingDetails', ctx.signal);
      if (!video) fail('platform_rejected', 'youtube video no longer exists', 'videoNotFound');
      return videoResult(video);
    },

    /**
     * Crash reconciliation: the channel's uploads playlist (playlistItems.list, newest first) lists a
     * video once its upload completed (an upload cut off mid-file leaves no video), with the title and
     * description we sent and the time it was added. Matched on both; a match still processing is
     * unknown, one YouTube failed or rejected is no post.
     */
    async findRecentPost(ctx, input) {
      const playlistId = await client.uploadsPlaylistId(ctx.accessToken, ctx.signal);
      if (!playlistId) return { status: 'unknown', reason: 'the channel has no uploads playlist' };
      const title = str(input.settings.title) ?? '';
      const found = await findInListing({ ...input, text: `${title}\n${input.text}` }, async (pageToken) => {
        const page = await client.listPlaylistItems(ctx.accessToken, playlistId, pageToken, ctx.signal);
        const posts = (page.items ?? [])
          .filter((item) => item.contentDetails?.videoId)
          .map((item) => ({
            id: item.contentDetails!.videoId!,
            text: `${item.snippet?.title ?? ''}\n${item.snippet?.description ?? ''}`,
            createdAt: Date.parse(item.snippet?.publishedAt ?? ''),
            url: youtubeWatchUrl(item.contentDetails!.videoId!),
          }));
        return { posts, next: page.nextPageToken };
      });
      if (found.status !== 'found') return found;
      const [video] = await client.listVideos(ctx.accessToken, [found.providerPostId], 'status', ctx.signal);
      const upload = video?.status?.uploadStatus;
      if (upload === 'processed') return found;
      if (!video || upload === 'failed' || upload === 'rejected' || upload === 'deleted') return { status: 'absent' };
      return { status: 'unknown', reason: 'the video is still processing' };
    },

    async fetchPermalink(ctx, providerPostId) {
      const [video] = await client.listVideos(ctx.accessToken, [providerPostId], 'id', ctx.signal);
      return video ? youtubeWatchUrl(video.id) : null;
    },

    async postComment(ctx, input) {
      const created = input.replyToCommentId
        ? await client.insertReply(ctx.accessToken, input.replyToCommentId, input.text, ctx.signal)
        : await client.insertCommentThread(ctx.accessToken, input.providerPostId, input.text, ctx.signal);
      return { providerCommentId: created.id };
    },

    async listComments(ctx, input) {
      const max = Math.min(100, Math.max(1, input.limit));
      const threads = await client.listCommentThreads(ctx.accessToken, input.providerPostId, max, ctx.signal);
      const since = input.since ? Date.parse(input.since) : null;
      const out: ProviderComment[] = [];
      for (const thread of threads) {
        const top = thread.snippet?.topLevelComment;
        if (top) out.push(toComment(top.id, top.snippet, null, input.providerPostId));
        for (const reply of thread.replies?.comments ?? []) {
          out.push(toComment(reply.id, reply.snippet, reply.snippet?.parentId ?? top?.id ?? null, input.providerPostId));
        }
      }
      return out
        .filter((c) => since === null || (c.providerCreatedAt !== null && Date.parse(c.providerCreatedAt) >= since))
        .slice(0, input.limit);
    },

    fetchPostMetrics: (ctx, input) => fetchYoutubePostMetrics(client, ctx, input), // analytics

    async fetchPostAnalytics(ctx, input) {
      const [video] = await client.listVideos(ctx.accessToken, [input.providerPostId], 'statistics', ctx.signal);
      if (!video) fail('platform_rejected', 'youtube video not found', 'videoNotFound');
      const s = video.statistics ?? {};
      const metrics: Record<string, number> = {};
      for (const [from, to] of [
        ['viewCount', 'views'],
        ['likeCount', 'likes'],
        ['favoriteCount', 'favorites'],
        ['commentCount', 'comments'],
      ] as const) {
        if (s[from] !== undefined) metrics[to] = Number(s[from]);
      }
      return { capturedAt: new Date().toISOString(), metrics };
    },

    async runTool(ctx, toolName, input) {
      if (toolName === 'privacyOptions') {
        return [
          {
            value: 'public',
            label: 'Public',
            description: 'Everyone can watch and find the video',
          },
          {
            value: 'unlisted',
            label: 'Unlisted',
            description: 'Anyone with the link can watch',
          },
          {
            value: 'private',
            label: 'Private',
            description: 'Only you and people you choose can watch',
          },
        ];
      }
      if (toolName === 'channelCategories') {
        const region = str(input.regionCode)?.toUpperCase() ?? 'US';
        const categories = await client.listVideoCategories(ctx.accessToken, region, str(input.hl), ctx.signal);
        return categories
          .filter((c) => c.snippet?.assignable !== false)
          .map((c) => ({
            id: c.id,
            title: c.snippet?.title ?? c.id,
            assignable: c.snippet?.assignable ?? true,
          }));
      }
      return fail('platform_rejected', `youtube does not support the ${toolName} tool`);
    },
  };
}
