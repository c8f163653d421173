/** threads adapter: Threads API behind the SocialProvider port. Comments are replies (reply_to_id). */

import { graphFindRecentPost } from '../meta-shared/graph-comments.js';
import { threadsOAuth } from '../meta-shared/meta-oauth.js';
import { metaToolRunner } from '../meta-shared/tool-support.js';
import type { ProviderAppConfig, SocialProvider } from '../provider.js';
import { threadsClient } from './threads.client.js';
import { THREADS_CAPABILITY, THREADS_RULES, THREADS_SCOPES } from './threads.rules.js';

export function createThreadsProvider(config: ProviderAppConfig): SocialProvider {
  const platform = 'threads' as const;
  const client = threadsClient(config);
  return {
    platform,
    capability: THREADS_CAPABILITY,
    rules: THREADS_RULES,
    oauth: threadsOAuth(config, THREADS_SCOPES),
    lookupAccounts: ({ tokens }) => client.me(tokens.accessToken),
    publish: (ctx, request) => client.publish(ctx, request),
    pollPublish: (ctx, pollToken) => client.pollPublish(ctx, pollToken),
    fetchPermalink: (ctx, id) => client.permalink(ctx, id),
    findRecentPost: (ctx, input) =>
      graphFindRecentPost(
        client.graph,
        `${client.api}/${ctx.externalAccountId}/threads`,
        ctx,
        { text: 'text', createdAt: 'timestamp', url: 'permalink' },
        input,
      ),
    postComment: (ctx, input) => client.reply(ctx, input),
    listComments: (ctx, input) => client.replies(ctx, input),
    hideComment: (ctx, input) => client.manageReply(ctx, input),
    replyBudget: (ctx) => client.replyQuota(ctx),
    fetchPostAnalytics: (ctx, input) => client.insights(ctx, input.providerPostId),
    runTool: metaToolRunner(platform, (ctx) => client.profile(ctx), {
      inputs: ['query', 'username'],
      search: (ctx, username) => client.lookupProfile(ctx, username),
    }),
  };
}
