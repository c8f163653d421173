/**
 * Instagram API with Instagram Login (graph.instagram.com). Official documentation:
 * - Overview: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login
 * - Business Login and tokens: https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login
 * - Instagram user (/me): https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started
 * - Publishing, comments, insights (same endpoints on graph.instagram.com): meta-shared/instagram-content.ts
 * - Errors: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes
 *
 * Error mapping (meta-shared/graph-errors.ts): code 190 -> auth_expired; 4, 17, 32, 613, 80002 and the
 * daily publishing limit (2207042) -> rate_limited; 1, 2, is_transient and 5xx -> transient; media and
 * caption errors (100, 9004, 2207xxx) -> user_content; permission codes 10, 200-299 -> platform_rejected;
 * a lost answer to media_publish or a comment -> unknown_outcome. The token endpoint's flat
 * {"error_type","code","error_message"} body is read by the same mapper.
 */

import { instagramApi } from '../meta-shared/instagram-content.js';
import { instagramProfileView } from '../meta-shared/instagram-profile.js';
import type { ProviderAccount, ProviderAppConfig, ProviderCallContext } from '../provider.js';

export function instagramStandaloneClient(config: ProviderAppConfig) {
  const platform = 'instagram_standalone' as const;
  const { graph, api, content } = instagramApi(platform, config);
  return {
    content,

    /** The professional account that granted the token; user_id is the id used for publishing. */
    async me(accessToken: string): Promise<ProviderAccount[]> {
      const me = await graph.get<Record<string, unknown>>(
        `${api}/me`,
        { accessToken },
        {
          fields: 'user_id,username,name,account_type,profile_picture_url',
        },
      );
      const id = String(me.user_id ?? me.id);
      return [
        {
          externalAccountId: id,
          displayName: String(me.name ?? me.username ?? id),
          handle: typeof me.username === 'string' ? me.username : null,
          avatarUrl: typeof me.profile_picture_url === 'string' ? me.profile_picture_url : null,
        },
      ];
    },

    async profile(ctx: ProviderCallContext): Promise<Record<string, unknown>> {
      const u = await graph.get<Record<string, unknown>>(`${api}/me`, ctx, {
        fields: 'user_id,username,name,account_type,biography,website,profile_picture_url,followers_count,follows_count,media_count',
      });
      return instagramProfileView(u, String(u.user_id ?? u.id), { accountType: u.account_type ?? null });
    },
  };
}
