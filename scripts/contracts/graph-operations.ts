/**
 * The Graph API operations our Meta adapters call, per host, for graph-specs-to-openapi.ts: which node
 * specs define each one (facebook/facebook-business-sdk-codegen api_specs/specs) and, for the ones the
 * specs omit, the parameters described by hand from the cited reference page. Threads publishes no
 * machine-readable description: its operations are described by hand in threads-operations.ts.
 *
 * Paths carry the version (`/v25.0/...`) because each host also serves unversioned token endpoints.
 */
import type { GraphOperation, SpecParam } from './graph-specs-to-openapi.js';

export const FB = 'https://developers.facebook.com/docs';
export const TOKEN_ANSWER = {
  type: 'object',
  required: ['access_token'],
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    expires_in: { type: 'integer' },
    user_id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    permissions: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
  },
};
export const SUCCESS = { type: 'object', required: ['success'], properties: { success: { type: 'boolean' } } };
export const CREATED = { type: 'object', required: ['id'], properties: { id: { type: 'string' }, post_id: { type: 'string' } } };
const IG_ONLY_MEDIA = {
  node: 'IGMediaForIGOnlyAPI',
  reason: 'the IG-only specs name the answer type "Media", which they do not describe; the reference page lists the IG Media fields',
};
const IG_COMMENT = {
  node: 'IGComment',
  reason:
    'the IG-only specs name the Facebook "Comment" node; the reference page lists the IG Comment fields (text, username, timestamp, ...)',
};
/** a write answers the object it created (read-after-write `fields` name that object's fields) */
const created = (node: string) => ({
  node,
  reason: 'the specs give the type the edge hangs on as the answer of a write; the write creates and answers this node',
});
export const p = (name: string, type: string, required = false): SpecParam => ({ name, type, required });

/** graph.facebook.com (and graph-video.facebook.com): Facebook Pages and Instagram with Facebook Login. */
export function facebookGraphOperations(v: string): GraphOperation[] {
  return [
    {
      method: 'GET',
      path: `/${v}/oauth/access_token`,
      operationId: 'oauthAccessToken',
      reference: `${FB}/facebook-login/guides/advanced/manual-flow#confirm`,
      params: [
        p('client_id', 'string', true),
        p('client_secret', 'string', true),
        p('redirect_uri', 'string'),
        p('code', 'string'),
        p('grant_type', 'oauth_grant_type'),
        p('fb_exchange_token', 'string'),
      ],
      answer: TOKEN_ANSWER,
      auth: false,
    },
    {
      method: 'GET',
      path: `/${v}/me/permissions`,
      operationId: 'userPermissions',
      reference: `${FB}/graph-api/reference/user/permissions/`,
      specs: ['User/permissions'],
    },
    {
      method: 'DELETE',
      path: `/${v}/me/permissions`,
      operationId: 'revokePermissions',
      reference: `${FB}/graph-api/reference/user/permissions/#Deleting`,
      specs: ['User/permissions'],
      answer: SUCCESS,
    },
    {
      method: 'GET',
      path: `/${v}/me/accounts`,
      operationId: 'userAccounts',
      reference: `${FB}/graph-api/reference/user/accounts/`,
      specs: ['User/accounts'],
      // the edge adds `tasks` (the user's tasks on each Page) to the Page fields
      fields: ['tasks'],
    },
    {
      method: 'GET',
      path: `/${v}/pages/search`,
      operationId: 'pagesSearch',
      reference: `${FB}/pages-api/search-pages/`,
      params: [p('q', 'string', true), p('limit', 'unsigned int')],
      fields: ['id', 'name', 'link', 'location', 'verification_status', 'is_eligible_for_branded_content', 'is_unclaimed'],
    },
    {
      method: 'GET',
      path: `/${v}/{object-id}`,
      operationId: 'readNode',
      reference: `${FB}/graph-api/reference/`,
      // the template serves every node we read by id: a Page, post, photo, video, comment, IG user, IG media, IG container
      specs: [
        'Page#get',
        'PagePost#get',
        'Photo#get',
        'AdVideo#get',
        'Comment#get',
        'IGUser#get',
        'IGMedia#get',
        'IGComment#get',
        'ShadowIGMediaBuilder#get',
      ],
    },
    {
      method: 'POST',
      path: `/${v}/{object-id}`,
      operationId: 'updateComment',
      reference: `${FB}/graph-api/reference/comment/#updating ; ${FB}/instagram-platform/instagram-graph-api/reference/ig-comment/#updating`,
      specs: ['Comment#update', 'IGComment#update'],
      answer: SUCCESS,
    },
    {
      method: 'POST',
      path: `/${v}/{page-id}/feed`,
      operationId: 'pageFeedPost',
      reference: `${FB}/pages-api/posts/#publish-posts`,
      specs: ['Page/feed'],
      answer: CREATED,
      returns: created('PagePost'),
    },
    {
      method: 'POST',
      path: `/${v}/{page-id}/photos`,
      operationId: 'pagePhotoPost',
      reference: `${FB}/graph-api/reference/page/photos/#Creating`,
      specs: ['Page/photos'],
      answer: CREATED,
      returns: created('Photo'),
    },
    {
      method: 'POST',
      path: `/${v}/{page-id}/videos`,
      operationId: 'pageVideoPost',
      reference: `${FB}/video-api/guides/publishing/`,
      specs: ['Page/videos'],
      answer: CREATED,
      returns: created('AdVideo'),
    },
    {
      method: 'GET',
      path: `/${v}/{page-id}/videos`,
      operationId: 'pageVideos',
      reference: `${FB}/graph-api/reference/page/videos/`,
      specs: ['Page/videos'],
    },
    {
      method: 'GET',
      path: `/${v}/{page-id}/posts`,
      operationId: 'pagePosts',
      reference: `${FB}/graph-api/reference/page/feed/`,
      specs: ['Page/posts'],
    },
    {
      method: 'GET',
      path: `/${v}/{page-id}/published_posts`,
      operationId: 'pagePublishedPosts',
      reference: `${FB}/graph-api/reference/page/published_posts/`,
      specs: ['Page/published_posts'],
    },
    {
      method: 'GET',
      path: `/${v}/{object-id}/comments`,
      operationId: 'objectComments',
      reference: `${FB}/graph-api/reference/object/comments/ ; ${FB}/instagram-platform/instagram-graph-api/reference/ig-media/comments`,
      specs: ['PagePost/comments', 'Comment/comments', 'AdVideo/comments', 'IGMedia/comments'],
    },
    {
      method: 'POST',
      path: `/${v}/{object-id}/comments`,
      operationId: 'createComment',
      reference: `${FB}/graph-api/reference/object/comments/#publish ; ${FB}/instagram-platform/instagram-graph-api/reference/ig-media/comments#creating`,
      specs: ['PagePost/comments', 'Comment/comments', 'AdVideo/comments', 'IGMedia/comments'],
      answer: CREATED,
    },
    {
      method: 'GET',
      path: `/${v}/{object-id}/insights`,
      operationId: 'objectInsights',
      reference: `${FB}/graph-api/reference/post/insights ; ${FB}/instagram-platform/instagram-graph-api/reference/ig-media/insights`,
      specs: ['PagePost/insights', 'IGMedia/insights'],
    },
    {
      method: 'GET',
      path: `/${v}/{ig-comment-id}/replies`,
      operationId: 'igCommentReplies',
      reference: `${FB}/instagram-platform/instagram-graph-api/reference/ig-comment/replies`,
      specs: ['IGComment/replies'],
    },
    {
      method: 'POST',
      path: `/${v}/{ig-comment-id}/replies`,
      operationId: 'igCommentReply',
      reference: `${FB}/instagram-platform/instagram-graph-api/reference/ig-comment/replies#creating`,
      specs: ['IGComment/replies'],
      answer: CREATED,
    },
    {
      method: 'GET',
      path: `/${v}/{ig-user-id}/media`,
      operationId: 'igUserMedia',
      reference: `${FB}/instagram-platform/instagram-graph-api/reference/ig-user/media`,
      specs: ['IGUser/media'],
    },
    {
      method: 'POST',
      path: `/${v}/{ig-user-id}/media`,
      operationId: 'igUserCreateContainer',
      reference: `${FB}/instagram-platform/instagram-graph-api/reference/ig-user/media#creating`,
      specs: ['IGUser/media'],
      answer: CREATED,
      returns: created('ShadowIGMediaBuilder'),
    },
    {
      method: 'POST',
      path: `/${v}/{ig-user-id}/media_publish`,
      operationId: 'igUserMediaPublish',
      reference: `${FB}/instagram-platform/instagram-graph-api/reference/ig-user/media_publish`,
      specs: ['IGUser/media_publish'],
      answer: CREATED,
    },
    {
      method: 'GET',
      path: `/${v}/{ig-user-id}/stories`,
      operationId: 'igUserStories',
      reference: `${FB}/instagram-platform/instagram-graph-api/reference/ig-user/stories`,
      specs: ['IGUser/stories'],
    },
    {
      method: 'POST',
      path: `/${v}/{app-id}/subscriptions`,
      operationId: 'appSubscriptions',
      reference: `${FB}/graph-api/reference/application/subscriptions/`,
      specs: ['Application/subscriptions'],
      answer: SUCCESS,
    },
    {
      method: 'POST',
      path: `/${v}/{page-id}/subscribed_apps`,
      operationId: 'pageSubscribedApps',
      reference: `${FB}/graph-api/reference/page/subscribed_apps/`,
      specs: ['Page/subscribed_apps'],
      answer: SUCCESS,
    },
  ];
}

/** graph.instagram.com (Instagram API with Instagram Login) and api.instagram.com's token endpoint. */
export function instagramGraphOperations(v: string): GraphOperation[] {
  const IG = `${FB}/instagram-platform/instagram-api-with-instagram-login`;
  return [
    {
      method: 'POST',
      path: '/oauth/access_token',
      operationId: 'oauthAccessToken',
      server: 'https://api.instagram.com',
      reference: `${IG}/business-login#step-2---exchange-the-code-for-a-token`,
      params: [
        p('client_id', 'string', true),
        p('client_secret', 'string', true),
        p('grant_type', 'string', true),
        p('redirect_uri', 'string', true),
        p('code', 'string', true),
      ],
      answer: { type: 'object', properties: { data: { type: 'array', items: TOKEN_ANSWER }, ...TOKEN_ANSWER.properties } },
      auth: false,
    },
    {
      method: 'GET',
      path: '/access_token',
      operationId: 'longLivedToken',
      reference: `${FB}/instagram-platform/reference/access_token`,
      params: [p('grant_type', 'ig_exchange_grant', true), p('client_secret', 'string', true), p('access_token', 'string', true)],
      answer: TOKEN_ANSWER,
      auth: false,
    },
    {
      method: 'GET',
      path: '/refresh_access_token',
      operationId: 'refreshToken',
      reference: `${FB}/instagram-platform/reference/refresh_access_token`,
      params: [p('grant_type', 'ig_refresh_grant', true), p('access_token', 'string', true)],
      answer: TOKEN_ANSWER,
      auth: false,
    },
    {
      method: 'GET',
      path: `/${v}/me`,
      operationId: 'me',
      reference: `${FB}/instagram-platform/instagram-api-with-instagram-login/get-started`,
      specs: ['IGUserForIGOnlyAPI#get'],
    },
    {
      method: 'GET',
      path: `/${v}/{object-id}`,
      operationId: 'readNode',
      reference: `${FB}/instagram-platform/reference/instagram-media`,
      specs: ['IGUserForIGOnlyAPI#get', 'IGMediaForIGOnlyAPI#get', 'IGComment#get', 'ShadowIGMediaBuilder#get'],
    },
    {
      method: 'POST',
      path: `/${v}/{ig-comment-id}`,
      operationId: 'hideComment',
      reference: `${FB}/instagram-platform/reference/instagram-comment#updating`,
      specs: ['IGComment#update'],
      answer: SUCCESS,
    },
    {
      method: 'GET',
      path: `/${v}/{ig-user-id}/media`,
      operationId: 'userMedia',
      reference: `${FB}/instagram-platform/reference/instagram-user/media`,
      specs: ['IGUserForIGOnlyAPI/media'],
      returns: IG_ONLY_MEDIA,
    },
    {
      method: 'POST',
      path: `/${v}/{ig-user-id}/media`,
      operationId: 'createContainer',
      reference: `${IG}/content-publishing`,
      specs: ['IGUserForIGOnlyAPI/media'],
      answer: CREATED,
      returns: created('ShadowIGMediaBuilder'),
    },
    // the IG-only spec names this edge "mediapublish"; the reference page and the live API use media_publish
    {
      method: 'POST',
      path: `/${v}/{ig-user-id}/media_publish`,
      operationId: 'mediaPublish',
      reference: `${FB}/instagram-platform/reference/instagram-user/media_publish`,
      specs: ['IGUserForIGOnlyAPI/mediapublish'],
      answer: CREATED,
    },
    {
      method: 'GET',
      path: `/${v}/{ig-user-id}/stories`,
      operationId: 'userStories',
      reference: `${FB}/instagram-platform/reference/instagram-user/stories`,
      specs: ['IGUserForIGOnlyAPI/stories'],
      returns: IG_ONLY_MEDIA,
    },
    {
      method: 'GET',
      path: `/${v}/{ig-media-id}/comments`,
      operationId: 'mediaComments',
      reference: `${FB}/instagram-platform/reference/instagram-media/comments`,
      specs: ['IGMediaForIGOnlyAPI/comments'],
      returns: IG_COMMENT,
    },
    {
      method: 'POST',
      path: `/${v}/{ig-media-id}/comments`,
      operationId: 'createComment',
      reference: `${FB}/instagram-platform/reference/instagram-media/comments#creating`,
      specs: ['IGMediaForIGOnlyAPI/comments'],
      answer: CREATED,
    },
    {
      method: 'GET',
      path: `/${v}/{ig-media-id}/insights`,
      operationId: 'mediaInsights',
      reference: `${FB}/instagram-platform/reference/instagram-media/insights`,
      specs: ['IGMediaForIGOnlyAPI/insights'],
    },
    // the IG-only specs have no comment node: the Instagram comment reference is the same for both logins
    {
      method: 'GET',
      path: `/${v}/{ig-comment-id}/replies`,
      operationId: 'commentReplies',
      reference: `${FB}/instagram-platform/reference/instagram-comment/replies`,
      specs: ['IGComment/replies'],
    },
    {
      method: 'POST',
      path: `/${v}/{ig-comment-id}/replies`,
      operationId: 'createReply',
      reference: `${FB}/instagram-platform/reference/instagram-comment/replies#creating`,
      specs: ['IGComment/replies'],
      answer: CREATED,
    },
  ];
}

/** Enums the hand-described parameters use (their values from the cited pages). */
export const HAND_ENUMS: Record<string, string[]> = {
  oauth_grant_type: ['fb_exchange_token'],
  ig_exchange_grant: ['ig_exchange_token'],
  ig_refresh_grant: ['ig_refresh_token'],
  th_exchange_grant: ['th_exchange_token'],
  th_refresh_grant: ['th_refresh_token'],
  threads_media_type: ['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'],
  threads_reply_control: ['everyone', 'accounts_you_follow', 'mentioned_only', 'parent_post_author_only', 'followers_only'],
  threads_media_metric: ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'],
};
