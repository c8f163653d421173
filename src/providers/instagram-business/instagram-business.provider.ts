/** instagram_business adapter: Instagram API with Facebook Login behind the SocialProvider port. */

import { facebookLoginOAuth } from '../meta-shared/meta-oauth.js';
import { requireStringInput, unsupportedTool } from '../meta-shared/tool-support.js';
import type { ProviderAppConfig, SocialProvider } from '../provider.js';
import { instagramBusinessClient } from './instagram-business.client.js';
import { INSTAGRAM_BUSINESS_CAPABILITY, INSTAGRAM_BUSINESS_RULES, INSTAGRAM_BUSINESS_SCOPES } from './instagram-business.rules.js';

export function createInstagramBusinessProvider(config: ProviderAppConfig): SocialProvider {
  const platform = 'instagram_business' as const;
  const client = instagramBusinessClient(config);
  return {
    platform,
    capability: INSTAGRAM_BUSINESS_CAPABILITY,
    rules: INSTAGRAM_BUSINESS_RULES,
    oauth: facebookLoginOAuth(platform, config, INSTAGRAM_BUSINESS_SCOPES),
    lookupAccounts: ({ tokens }) => client.linkedAccounts(tokens.accessToken),
    publish: (ctx, request) => client.content.publish(ctx, request),
    pollPublish: (ctx, pollToken) => client.content.pollPublish(ctx, pollToken),
    fetchPermalink: (ctx, id) => client.content.fetchPermalink(ctx, id),
    findRecentPost: (ctx, input) => client.content.findRecentPost(ctx, input),
    postComment: (ctx, input) => client.content.postComment(ctx, input),
    listComments: (ctx, input) => client.content.listComments(ctx, input),
    hideComment: (ctx, input) => client.content.hideComment(ctx, input),
    fetchPostAnalytics: (ctx, input) => client.content.fetchPostAnalytics(ctx, input),
    async runTool(ctx, toolName, input) {
      if (toolName === 'pageProfile') return [await client.profile(ctx)];
      if (toolName === 'mentionSearch') return client.discover(ctx, requireStringInput(platform, input, 'query', 'username'));
      throw unsupportedTool(platform, toolName);
    },
  };
}
