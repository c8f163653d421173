/**
 * facebook_page adapter. lookupAccounts returns the user's Pages with their page access tokens
 * (accountAccessToken): a page token derived from a long-lived user token does not expire, and every
 * call on a connected page channel uses it.
 */

import { graphFindRecentPost } from '../meta-shared/graph-comments.js';
import { facebookLoginOAuth } from '../meta-shared/meta-oauth.js';
import { metaToolRunner } from '../meta-shared/tool-support.js';
import type { ProviderAppConfig, SocialProvider } from '../provider.js';
import { facebookPageClient } from './facebook-page.client.js';
import { facebookPageMetrics } from './facebook-page.metrics.js'; // analytics
import { FACEBOOK_PAGE_CAPABILITY, FACEBOOK_PAGE_RULES, FACEBOOK_PAGE_SCOPES } from './facebook-page.rules.js';

export function createFacebookPageProvider(config: ProviderAppConfig): SocialProvider {
  const platform = 'facebook_page' as const;
  const client = facebookPageClient(config);
  return {
    platform,
    capability: FACEBOOK_PAGE_CAPABILITY,
    rules: FACEBOOK_PAGE_RULES,
    oauth: facebookLoginOAuth(platform, config, FACEBOOK_PAGE_SCOPES),
    lookupAccounts: ({ tokens }) => client.pages(tokens.accessToken),
    publish: (ctx, request) => client.publish(ctx, request),
    pollPublish: (ctx, pollToken) => client.pollPublish(ctx, pollToken),
    fetchPermalink: (ctx, id) => client.permalink(ctx, id),
    findRecentPost: async (ctx, input) =>
      // a video post reaches the feed only once processed; /{page-id}/videos lists it from the upload on
      input.mediaKinds.includes('video')
        ? client.findRecentVideo(ctx, input)
        : graphFindRecentPost(
            client.graph,
            `${client.api}/${ctx.externalAccountId}/posts`,
            ctx,
            { text: 'message', createdAt: 'created_time', url: 'permalink_url' },
            input,
          ),
    postComment: (ctx, input) => client.postComment(ctx, input),
    listComments: (ctx, input) => client.listComments(ctx, input),
    hideComment: (ctx, input) => client.hideComment(ctx, input),
    fetchPostAnalytics: (ctx, input) => client.insights(ctx, input.providerPostId),
    fetchPostMetrics: facebookPageMetrics(config), // analytics
    runTool: metaToolRunner(platform, (ctx) => client.profile(ctx), {
      inputs: ['query'],
      search: (ctx, query) => client.searchPages(ctx, query),
    }),
  };
}
