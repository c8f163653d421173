/** The SocialProvider methods both Instagram adapters serve from the shared Instagram content client. */

import type { SocialProvider } from '../provider.js';
import type { instagramContent } from './instagram-content.js';

type InstagramContentMethods = Pick<
  SocialProvider,
  'publish' | 'pollPublish' | 'fetchPermalink' | 'findRecentPost' | 'postComment' | 'listComments' | 'hideComment' | 'fetchPostAnalytics'
>;

export function instagramContentMethods(content: ReturnType<typeof instagramContent>): InstagramContentMethods {
  return {
    publish: (ctx, request) => content.publish(ctx, request),
    pollPublish: (ctx, pollToken) => content.pollPublish(ctx, pollToken),
    fetchPermalink: (ctx, id) => content.fetchPermalink(ctx, id),
    findRecentPost: (ctx, input) => content.findRecentPost(ctx, input),
    postComment: (ctx, input) => content.postComment(ctx, input),
    listComments: (ctx, input) => content.listComments(ctx, input),
    hideComment: (ctx, input) => content.hideComment(ctx, input),
    fetchPostAnalytics: (ctx, input) => content.fetchPostAnalytics(ctx, input),
  };
}
