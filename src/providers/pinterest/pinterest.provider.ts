/**
 * Pinterest adapter (API v5). Image Pins are created from a public image URL in one call, carousel Pins
 * (2 to 5 images) from their URLs in one call (media_source multiple_image_urls). Video Pins
 * register an upload (POST /v5/media), send the file to the returned upload_url, and are created once
 * GET /v5/media/{id} reports `succeeded`; until then publish answers `processing` and pollPublish
 * carries on, so the engine never holds a job open while Pinterest transcodes.
 */

import type { ProviderAppConfig, ProviderCallContext, PublishResult, SocialProvider } from '../provider.js';
import { authorizeQuery } from '../shared/oauth-requests.js';
import { findInListing } from '../shared/recent-posts.js';
import { PinterestClient } from './pinterest.client.js';
import { decodePlan, encodePlan, fail, pinFields, pinterestPinUrl, str, toTokens, type VideoPinPlan } from './pinterest.mapper.js';
import { fetchPinterestPostMetrics } from './pinterest.metrics.js'; // analytics
import { PINTEREST_LIMITS, PINTEREST_SCOPES, pinterestCapability, pinterestValidationRules } from './pinterest.rules.js';

const MEDIA_POLL_MS = 5_000;
const BOARD_LIST_MAX = 500;

export function createPinterestProvider(config: ProviderAppConfig): SocialProvider {
  const client = new PinterestClient(config);

  async function createPin(ctx: ProviderCallContext, pin: Record<string, unknown>): Promise<PublishResult> {
    const created = await client.createPin(ctx.accessToken, pin, ctx.signal);
    return {
      status: 'published',
      providerPostId: created.id,
      url: pinterestPinUrl(created.id),
    };
  }

  /** Creates the video Pin when the media is processed; otherwise asks to be polled again. */
  async function advanceVideo(ctx: ProviderCallContext, plan: VideoPinPlan): Promise<PublishResult> {
    const media = await client.mediaStatus(ctx.accessToken, plan.mediaId, ctx.signal);
    if (media.status === 'succeeded') {
      return createPin(ctx, {
        ...plan.pin,
        media_source: {
          source_type: 'video_id',
          media_id: plan.mediaId,
          ...plan.cover,
        },
      });
    }
    if (media.status === 'failed') fail('user_content', 'pinterest could not process the video');
    return {
      status: 'processing',
      pollToken: encodePlan(plan),
      pollAfterMs: MEDIA_POLL_MS,
    };
  }

  return {
    platform: 'pinterest',
    capability: pinterestCapability,
    rules: pinterestValidationRules,

    oauth: {
      supportsPkce: false,
      supportsRefresh: true,
      // API v5 has no endpoint that revokes a user token: the user removes the app in Pinterest's
      // settings; revoke() forgets nothing on Pinterest's side and the caller deletes the tokens
      supportsRevoke: false,
      defaultScopes: PINTEREST_SCOPES,
      authorizationUrl(input) {
        if (!config.clientId) fail('platform_rejected', 'pinterest client id is not configured');
        return `${client.authorizeEndpoint()}?${authorizeQuery(config.clientId, input, PINTEREST_SCOPES, ',')}`;
      },
      async exchangeCode(input) {
        const form = new URLSearchParams({
          grant_type: 'authorization_code',
          code: input.code,
          redirect_uri: input.redirectUri,
        });
        return toTokens(await client.token(form, 'exchange'), null);
      },
      async refresh(input) {
        if (!input.refreshToken) fail('auth_expired', 'pinterest channel has no refresh token; connect it again');
        const form = new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: input.refreshToken,
        });
        return toTokens(await client.token(form, 'refresh'), input.refreshToken);
      },
      async revoke() {},
    },

    async lookupAccounts({ tokens }) {
      const me = await client.userAccount(tokens.accessToken);
      const id = me.id ?? me.username;
      if (!id) fail('platform_rejected', 'pinterest user_account has neither id nor username');
      return [
        {
          externalAccountId: id,
          displayName: me.business_name || me.username || id,
          handle: me.username ?? null,
          avatarUrl: me.profile_image ?? null,
        },
      ];
    },

    async publish(ctx, request) {
      const [item, ...rest] = request.media;
      if (!item) fail('user_content', 'pinterest needs an image, 2 to 5 images or a video');
      if (rest.length > 0) {
        // carousel Pin: 2 to 5 images by URL (media_source multiple_image_urls); the Pin has one alt text
        if (request.media.length > PINTEREST_LIMITS.maxCarouselImages || request.media.some((m) => m.kind !== 'image')) {
          fail('user_content', `pinterest carousels take 2 to ${PINTEREST_LIMITS.maxCarouselImages} images`);
        }
        return createPin(ctx, {
          ...pinFields(request, request.media.find((m) => m.altText)?.altText),
          media_source: { source_type: 'multiple_image_urls', items: request.media.map((m) => ({ url: m.url })) },
        });
      }
      const pin = pinFields(request, item.altText);
      if (item.kind === 'image') {
        return createPin(ctx, {
          ...pin,
          media_source: { source_type: 'image_url', url: item.url },
        });
      }
      if (item.kind !== 'video') fail('user_content', `pinterest does not accept ${item.kind} media`);
      const coverUrl = str(request.settings.coverImageUrl);
      const upload = await client.registerMedia(ctx.accessToken, ctx.signal);
      await client.uploadMedia(upload, item, ctx.signal);
      return advanceVideo(ctx, {
        mediaId: upload.media_id,
        pin,
        cover: coverUrl ? { cover_image_url: coverUrl } : { cover_image_key_frame_time: 0 },
      });
    },

    async pollPublish(ctx, pollToken) {
      return advanceVideo(ctx, decodePlan(pollToken));
    },

    // crash reconciliation: the account's Pins (https://developers.pinterest.com/docs/api/v5/pins-list), the text is the description
    findRecentPost(ctx, input) {
      return findInListing(input, async (bookmark) => {
        const page = await client.listPins(ctx.accessToken, bookmark, ctx.signal);
        const posts = (page.items ?? []).map((p) => ({
          id: p.id,
          text: p.description ?? '',
          // the description types created_at as an RFC 3339 date-time; answers seen without a zone are UTC
          createdAt: Date.parse(p.created_at ? (/(Z|[+-]\d\d:?\d\d)$/i.test(p.created_at) ? p.created_at : `${p.created_at}Z`) : ''),
          url: pinterestPinUrl(p.id),
        }));
        return { posts, next: page.bookmark ?? undefined };
      });
    },

    async fetchPermalink(ctx, providerPostId) {
      const pin = await client.getPin(ctx.accessToken, providerPostId, ctx.signal);
      return pinterestPinUrl(pin.id);
    },

    async postComment() {
      return fail('platform_rejected', 'pinterest API v5 does not support comments');
    },

    async listComments() {
      return fail('platform_rejected', 'pinterest API v5 does not support comments');
    },

    fetchPostMetrics: (ctx, input) => fetchPinterestPostMetrics(client, ctx, input), // analytics

    async fetchPostAnalytics(ctx, input) {
      const names = {
        IMPRESSION: 'impressions',
        SAVE: 'saves',
        PIN_CLICK: 'pinClicks',
        OUTBOUND_CLICK: 'outboundClicks',
      } as const;
      const answer = await client.pinAnalytics(ctx.accessToken, input.providerPostId, Object.keys(names), ctx.signal);
      const summary = answer.all?.summary_metrics ?? answer.all?.lifetime_metrics ?? {};
      const metrics: Record<string, number> = {};
      for (const [from, to] of Object.entries(names)) {
        if (typeof summary[from] === 'number') metrics[to] = summary[from];
      }
      return { capturedAt: new Date().toISOString(), metrics };
    },

    async runTool(ctx, toolName) {
      if (toolName !== 'boardList') return fail('platform_rejected', `pinterest does not support the ${toolName} tool`);
      const boards = await client.listBoards(ctx.accessToken, BOARD_LIST_MAX, ctx.signal);
      return boards.map((b) => ({
        id: b.id,
        name: b.name ?? b.id,
        description: b.description ?? '',
        privacy: b.privacy ?? 'PUBLIC',
        pinCount: b.pin_count ?? 0,
      }));
    },
  };
}
