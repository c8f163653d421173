/**
 * TikTok adapter: Login Kit v2 OAuth, user info, Direct Post (creator_info -> init -> FILE_UPLOAD chunks ->
 * status fetch), photo posts (PULL_FROM_URL), video metrics, and the privacyOptions tool.
 * Doc links and the error mapping live in tiktok.client.ts.
 */
import {
  type OAuthTokens,
  type ProviderAppConfig,
  type ProviderCallContext,
  ProviderError,
  type PublishResult,
  type SocialProvider,
} from '../provider.js';
import { requireRefreshToken } from '../shared/oauth-requests.js';
import { findInListing } from '../shared/recent-posts.js';
import { TiktokClient, type TiktokTokenResponse, tiktokError } from './tiktok.client.js';
import { checkAgainstCreator, checkTiktokMedia, publishPhotos, publishVideo, userContent } from './tiktok.publish.js';
import { TIKTOK_CAPABILITY, TIKTOK_DEFAULT_SCOPES, TIKTOK_PRIVACY_LABELS, TIKTOK_VALIDATION_RULES } from './tiktok.rules.js';

export interface TiktokProviderOptions {
  /** preferred FILE_UPLOAD chunk size (clamped to the documented 5-64 MB) */
  chunkSizeBytes?: number;
  /** delay suggested to the engine before the first status fetch */
  pollAfterMs?: number;
}

const PENDING_STATUSES = new Set(['PROCESSING_UPLOAD', 'PROCESSING_DOWNLOAD', 'SEND_TO_USER_INBOX']);

function toTokens(t: TiktokTokenResponse, now = Date.now()): OAuthTokens {
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? null,
    expiresAt: t.expires_in ? new Date(now + t.expires_in * 1000) : null,
    refreshTokenExpiresAt: t.refresh_expires_in ? new Date(now + t.refresh_expires_in * 1000) : null,
    scopes: (t.scope ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    extra: t.open_id ? { open_id: t.open_id } : {},
  };
}

interface PollState {
  publishId: string;
  username: string | null;
}

const encodePoll = (s: PollState) => Buffer.from(JSON.stringify(s)).toString('base64url');
function decodePoll(token: string): PollState {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as PollState;
    if (typeof parsed.publishId === 'string') return parsed;
  } catch {
    // a bare publish_id is accepted too
  }
  return { publishId: token, username: null };
}

export function createTiktokProvider(config: ProviderAppConfig, options: TiktokProviderOptions = {}): SocialProvider {
  const client = new TiktokClient(config);
  const pollAfterMs = options.pollAfterMs ?? 5000;

  async function creatorInfo(ctx: ProviderCallContext) {
    return client.creatorInfo(ctx.accessToken, ctx.signal);
  }

  const provider: SocialProvider = {
    platform: 'tiktok',
    capability: TIKTOK_CAPABILITY,
    rules: TIKTOK_VALIDATION_RULES,
    oauth: {
      // Login Kit for Web uses the confidential authorization-code flow without PKCE
      supportsPkce: false,
      supportsRefresh: true,
      supportsRevoke: true,
      defaultScopes: TIKTOK_DEFAULT_SCOPES,
      authorizationUrl(input) {
        const url = new URL(`${config.authBaseUrl.replace(/\/$/, '')}/v2/auth/authorize/`);
        url.searchParams.set('client_key', config.clientId ?? '');
        url.searchParams.set('scope', input.scopes.join(','));
        url.searchParams.set('response_type', 'code');
        url.searchParams.set('redirect_uri', input.redirectUri);
        url.searchParams.set('state', input.state);
        return url.toString();
      },
      async exchangeCode(input) {
        return toTokens(await client.exchangeCode(input.code, input.redirectUri, input.codeVerifier));
      },
      async refresh(input) {
        const refreshToken = requireRefreshToken('tiktok', input.refreshToken, 'no TikTok refresh token stored');
        return toTokens(await client.refresh(refreshToken));
      },
      async revoke(input) {
        await client.revoke(input.accessToken);
      },
    },

    async lookupAccounts({ tokens }) {
      const fields = ['open_id', 'union_id', 'avatar_url', 'display_name'];
      // username needs user.info.profile; asking for it without the scope fails the whole call
      if (tokens.scopes.length === 0 || tokens.scopes.includes('user.info.profile')) fields.push('username');
      const data = await client.userInfo(tokens.accessToken, fields);
      const user = data.user ?? {};
      const id = user.open_id ?? tokens.extra.open_id;
      if (!id)
        throw tiktokError({
          code: 'invalid_response',
          message: 'user info without open_id',
          httpStatus: 200,
        });
      return [
        {
          externalAccountId: id,
          displayName: user.display_name ?? user.username ?? id,
          handle: user.username ?? null,
          avatarUrl: user.avatar_url ?? null,
        },
      ];
    },

    async publish(ctx, request) {
      checkTiktokMedia(request);
      const creator = await creatorInfo(ctx);
      const privacy = checkAgainstCreator(request, creator);
      const publishId = request.media.some((m) => m.kind === 'video')
        ? await publishVideo(client, ctx, request, creator, privacy, options.chunkSizeBytes)
        : await publishPhotos(client, ctx, request, creator, privacy);
      return {
        status: 'processing',
        pollToken: encodePoll({
          publishId,
          username: creator.creator_username || null,
        }),
        pollAfterMs,
      };
    },

    async pollPublish(ctx, pollToken): Promise<PublishResult> {
      const poll = decodePoll(pollToken);
      const status = await client.statusFetch(ctx.accessToken, poll.publishId, ctx.signal);
      if (status.status === 'PUBLISH_COMPLETE') {
        const postId = status.publicaly_available_post_id?.[0];
        // private (SELF_ONLY) posts are never given a public post id
        if (postId === undefined)
          return {
            status: 'published',
            providerPostId: poll.publishId,
            url: null,
          };
        const id = String(postId);
        const url = poll.username ? `https://www.tiktok.com/@${poll.username}/video/${id}` : null;
        return { status: 'published', providerPostId: id, url };
      }
      if (status.status === 'FAILED') {
        throw tiktokError({
          code: status.fail_reason ?? 'internal',
          message: `publish ${poll.publishId} failed`,
          body: status,
        });
      }
      if (PENDING_STATUSES.has(status.status)) {
        return { status: 'processing', pollToken, pollAfterMs };
      }
      throw tiktokError({
        code: 'unknown_status',
        message: `unexpected status ${status.status}`,
        body: status,
      });
    },

    /**
     * Crash reconciliation: POST /v2/video/list/ (video.list scope) lists the creator's public videos,
     * newest first, once processed, with the caption (`title`, our text) and `create_time`. Only a
     * PUBLIC_TO_EVERYONE video post can be told apart: other privacy levels and photo posts are not in the
     * list, and the publish_id that status/fetch needs is lost with the worker.
     */
    async findRecentPost(ctx, input) {
      if (input.settings.privacy_level !== 'PUBLIC_TO_EVERYONE')
        return { status: 'unknown', reason: 'only public videos are in the video list' };
      if (!input.mediaKinds.includes('video')) return { status: 'unknown', reason: 'photo posts are not in the video list' };
      return findInListing(input, async (cursor) => {
        const page = await client.listVideos(
          ctx.accessToken,
          cursor === undefined ? undefined : Number(cursor),
          ['id', 'title', 'create_time', 'share_url'],
          ctx.signal,
        );
        const posts = (page.videos ?? []).map((v) => ({
          id: String(v.id),
          text: typeof v.title === 'string' ? v.title : '',
          createdAt: typeof v.create_time === 'number' ? v.create_time * 1000 : Number.NaN,
          url: typeof v.share_url === 'string' ? v.share_url : null,
        }));
        return { posts, next: page.has_more && page.cursor !== undefined ? String(page.cursor) : undefined };
      });
    },

    async fetchPermalink(ctx, providerPostId) {
      const data = await client.queryVideos(ctx.accessToken, [providerPostId], ['id', 'share_url'], ctx.signal);
      const video = data.videos?.find((v) => String(v.id) === providerPostId);
      return typeof video?.share_url === 'string' ? video.share_url : null;
    },

    async postComment() {
      throw new ProviderError({
        platform: 'tiktok',
        category: 'platform_rejected',
        message: 'the TikTok API offers no endpoint to post comments',
        providerCode: 'unsupported',
      });
    },

    async listComments() {
      throw new ProviderError({
        platform: 'tiktok',
        category: 'platform_rejected',
        message: 'the TikTok API offers no endpoint to read comments of a creator post',
        providerCode: 'unsupported',
      });
    },

    async fetchPostAnalytics(ctx, input) {
      const fields = ['id', 'view_count', 'like_count', 'comment_count', 'share_count'];
      const data = await client.queryVideos(ctx.accessToken, [input.providerPostId], fields, ctx.signal);
      const video = data.videos?.find((v) => String(v.id) === input.providerPostId);
      if (!video) throw userContent(`video ${input.providerPostId} not found for this creator`, 'video_not_found');
      const metric = (k: string) => (typeof video[k] === 'number' ? (video[k] as number) : 0);
      return {
        capturedAt: new Date().toISOString(),
        metrics: {
          views: metric('view_count'),
          likes: metric('like_count'),
          comments: metric('comment_count'),
          shares: metric('share_count'),
        },
      };
    },

    async runTool(ctx, toolName) {
      if (toolName !== 'privacyOptions') {
        throw new ProviderError({
          platform: 'tiktok',
          category: 'platform_rejected',
          message: `TikTok has no ${toolName} tool`,
        });
      }
      const creator = await creatorInfo(ctx);
      return creator.privacy_level_options.map((value) => ({
        value,
        label: TIKTOK_PRIVACY_LABELS[value] ?? value,
        creatorUsername: creator.creator_username,
        creatorNickname: creator.creator_nickname,
        commentDisabled: creator.comment_disabled,
        duetDisabled: creator.duet_disabled,
        stitchDisabled: creator.stitch_disabled,
        maxVideoPostDurationSec: creator.max_video_post_duration_sec,
      }));
    },
  };
  return provider;
}
