/**
 * Instagram API with Facebook Login (graph.facebook.com). Official documentation:
 * - Overview: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login
 * - Pages with linked accounts: https://developers.facebook.com/docs/graph-api/reference/user/accounts
 *   and https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/page
 * - IG User fields: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user
 * - Business discovery: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login/business-discovery
 * - Publishing, comments, insights: see meta-shared/instagram-content.ts
 * - Errors: https://developers.facebook.com/docs/graph-api/guides/error-handling and
 *   https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes
 *
 * Error mapping (meta-shared/graph-errors.ts): code 190/102 and OAuth subcodes 458-492 -> auth_expired;
 * codes 4, 17, 32, 341, 613, 80000-80014, subcode 2207042 (daily publishing limit) and HTTP 429 ->
 * rate_limited (retry from X-Business-Use-Case-Usage); codes 1, 2, is_transient, container-not-ready
 * 2207027 and 5xx -> transient; codes 100, 9004, 36003, 2207xxx media subcodes -> user_content;
 * codes 3, 10, 200-299, 368 -> platform_rejected; a lost answer to media_publish or a comment ->
 * unknown_outcome (provider-http).
 */

import { parseGraphError } from '../meta-shared/graph-errors.js';
import { instagramApi } from '../meta-shared/instagram-content.js';
import { instagramProfileView } from '../meta-shared/instagram-profile.js';
import { safeFieldArgument } from '../meta-shared/tool-support.js';
import type { ProviderAccount, ProviderAppConfig, ProviderCallContext } from '../provider.js';
import { ProviderError } from '../provider.js';

interface PageWithInstagram {
  id: string;
  name?: string;
  instagram_business_account?: {
    id: string;
    username?: string;
    name?: string;
    profile_picture_url?: string;
  };
}

export function instagramBusinessClient(config: ProviderAppConfig) {
  const platform = 'instagram_business' as const;
  const { graph, api, content } = instagramApi(platform, config);
  return {
    content,

    /** Instagram professional accounts linked to the Pages the user manages. */
    async linkedAccounts(accessToken: string): Promise<ProviderAccount[]> {
      const res = await graph.get<{ data?: PageWithInstagram[] }>(
        `${api}/me/accounts`,
        { accessToken },
        {
          fields: 'id,name,instagram_business_account{id,username,name,profile_picture_url}',
          limit: 100,
        },
      );
      return (res.data ?? [])
        .filter((p) => p.instagram_business_account?.id)
        .map((p) => {
          const ig = p.instagram_business_account!;
          return {
            externalAccountId: ig.id,
            displayName: ig.name ?? ig.username ?? p.name ?? ig.id,
            handle: ig.username ?? null,
            avatarUrl: ig.profile_picture_url ?? null,
          };
        });
    },

    async profile(ctx: ProviderCallContext): Promise<Record<string, unknown>> {
      const u = await graph.get<Record<string, unknown>>(`${api}/${ctx.externalAccountId}`, ctx, {
        fields: 'id,username,name,biography,website,followers_count,follows_count,media_count,profile_picture_url',
      });
      return instagramProfileView(u, String(u.id));
    },

    /** Business discovery: another professional account by exact username, or none. */
    async discover(ctx: ProviderCallContext, username: string): Promise<Array<Record<string, unknown>>> {
      const handle = safeFieldArgument(username);
      try {
        const res = await graph.get<{
          business_discovery?: Record<string, unknown>;
        }>(`${api}/${ctx.externalAccountId}`, ctx, {
          fields: `business_discovery.username(${handle}){id,username,name,profile_picture_url,followers_count,media_count}`,
        });
        const d = res.business_discovery;
        if (!d) return [];
        return [
          {
            externalAccountId: String(d.id),
            handle: d.username ?? handle,
            displayName: d.name ?? d.username ?? handle,
            avatarUrl: d.profile_picture_url ?? null,
            followersCount: Number(d.followers_count ?? 0),
            mediaCount: Number(d.media_count ?? 0),
          },
        ];
      } catch (err) {
        // "user cannot be found" (code 110 / subcode 2207013) is an empty result, not a failure
        const body = err instanceof ProviderError ? parseGraphError(err.providerResponse) : null;
        if (body && (body.code === 110 || body.subcode === 2207013)) return [];
        throw err;
      }
    },
  };
}
