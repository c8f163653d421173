/** Social comment routes (ROUTES.md, Analytics and engagement). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { AppError, type ErrorCode } from '../../platform/errors.js';
import type { CommentDraftsService } from './comments.drafts.js';
import type { CommentRepliesService } from './comments.replies.js';
import {
  COMMENT_SCHEMAS,
  CommentParams,
  CommentReplyDraftRequest,
  CommentReplyDraftResponse,
  SocialComment,
  SocialCommentHideRequest,
  SocialCommentList,
  SocialCommentListQuery,
  SocialCommentProfileSyncRequest,
  SocialCommentProfileSyncResponse,
  SocialCommentReplyQuery,
  SocialCommentReplyRequest,
  SocialCommentReplyResponse,
  SocialCommentSyncRequest,
  SocialCommentSyncResponse,
} from './comments.schemas.js';
import type { CommentsService } from './comments.service.js';

type Scope = Parameters<typeof publicOrDashboard>[0];
type Policy = Parameters<typeof publicOrDashboard>[1];

/** Every comments route takes an API key with `scope` or a dashboard session under `policy`. */
const access = (scope: Scope, policy: Policy, validationCode: ErrorCode) => ({
  ...publicOrDashboard(scope, policy),
  validationCode,
});
/** Its tag in the document (the security and the credentials' refusals follow from `access`: http/route-security.ts). */
const documented = { tags: ['Social comments'] };

/** The services the routes call (the area's module is one). */
export interface CommentsRouteServices {
  service: CommentsService;
  replies: CommentRepliesService;
  drafts: CommentDraftsService;
}

export function registerCommentRoutes(root: FastifyInstance, m: CommentsRouteServices): void {
  for (const s of COMMENT_SCHEMAS) root.addSchema(s);
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const svc = m.service;
  const org = organizationOf;

  app.get(
    '/v1/social-comments',
    {
      config: access('comments:read', 'publishing.jobs.read', 'invalid_public_social_comment_query'),
      schema: {
        operationId: 'listSocialComments',
        ...documented,
        summary: 'List synced comments of the organization (filters, cursor pagination)',
        querystring: SocialCommentListQuery,
        response: { 200: SocialCommentList, ...errorResponses() },
      },
    },
    async (request) => svc.list(org(request), request.query),
  );

  app.post(
    '/v1/social-comments/sync',
    {
      config: access('comments:write', 'engagement.comments.manage', 'invalid_public_social_comment_sync_request'),
      schema: {
        operationId: 'syncSocialComments',
        ...documented,
        summary: "Sync one post's comments through the platform's comment API (dryRun default true)",
        body: SocialCommentSyncRequest,
        response: {
          200: SocialCommentSyncResponse,
          ...errorResponses(
            'social_comment_write_disabled',
            'social_comment_not_found',
            'brand_not_found',
            'channel_account_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
          ),
        },
      },
    },
    async (request) => svc.sync(org(request), request.body),
  );

  app.post(
    '/v1/social-comments/sync-profile',
    {
      config: access('comments:write', 'engagement.comments.manage', 'invalid_public_social_comment_sync_request'),
      schema: {
        operationId: 'syncProfileSocialComments',
        ...documented,
        summary: "Sync the comments of a brand's (or profile's) most recent published posts; failures are reported per target",
        body: SocialCommentProfileSyncRequest,
        response: {
          200: SocialCommentProfileSyncResponse,
          ...errorResponses('social_comment_write_disabled', 'social_comment_not_found', 'brand_not_found'),
        },
      },
    },
    async (request) => svc.syncProfile(org(request), request.body),
  );

  app.get(
    '/v1/social-comments/:socialCommentId',
    {
      config: access('comments:read', 'publishing.jobs.read', 'invalid_public_social_comment_query'),
      schema: {
        operationId: 'getSocialComment',
        ...documented,
        summary: 'One synced comment',
        params: CommentParams,
        response: {
          200: SocialComment,
          ...errorResponses('social_comment_not_found'),
        },
      },
    },
    async (request) => svc.get(org(request), request.params.socialCommentId),
  );

  app.post(
    '/v1/social-comments/:socialCommentId/reply',
    {
      config: access('comments:write', 'engagement.comments.manage', 'invalid_public_social_comment_reply_request'),
      schema: {
        operationId: 'replyToSocialComment',
        ...documented,
        summary: 'Reply to a comment through the platform (dryRun default true; Idempotency-Key prevents a second post)',
        description:
          'A reply whose platform answer was lost is answered with mode needs_reconciliation and is settled by reading the thread (on the next sync or reply call), never by posting again. The same request retried with the same Idempotency-Key header answers the first attempt.',
        params: CommentParams,
        querystring: SocialCommentReplyQuery,
        body: SocialCommentReplyRequest,
        response: {
          200: SocialCommentReplyResponse,
          ...errorResponses(
            'invalid_public_social_comment_reply_request',
            'invalid_public_social_comment_reply_query',
            'provider_comment_reply_unsupported',
            'provider_comment_reply_disabled',
            'social_comment_write_disabled',
            'social_comment_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
          ),
        },
      },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const unknown = Object.keys(query).filter((k) => k !== 'channelAccountId');
      const guard = query.channelAccountId;
      if (unknown.length > 0 || (guard !== undefined && (typeof guard !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(guard))))
        throw new AppError('invalid_public_social_comment_reply_query', {
          message: 'The only query parameter is channelAccountId (a channel account id).',
          fields: [{ path: [unknown[0] ?? 'channelAccountId'], source: 'query' }],
        });
      const key = request.headers['idempotency-key'];
      return m.replies.reply(org(request), request.params.socialCommentId, request.body, {
        channelAccountId: request.query.channelAccountId,
        idempotencyKey: Array.isArray(key) ? key[0] : key,
      });
    },
  );

  app.post(
    '/v1/social-comments/:socialCommentId/hide',
    {
      config: access('comments:write', 'engagement.comments.manage', 'invalid_public_social_comment_hide_request'),
      schema: {
        operationId: 'hideSocialComment',
        ...documented,
        summary: 'Hide (hidden: true) or show again (hidden: false) a comment on the platform',
        params: CommentParams,
        body: SocialCommentHideRequest,
        response: {
          200: SocialComment,
          ...errorResponses(
            'social_comment_write_disabled',
            'social_comment_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
          ),
        },
      },
    },
    async (request) => m.replies.hide(org(request), request.params.socialCommentId, request.body.hidden),
  );

  app.post(
    '/v1/social-comments/reply-drafts',
    {
      config: access('comments:read', 'engagement.comments.manage', 'invalid_public_comment_reply_draft_request'),
      schema: {
        operationId: 'draftSocialCommentReply',
        ...documented,
        summary: 'Draft a reply with the configured language model (dryRun default true answers the prompt)',
        body: CommentReplyDraftRequest,
        response: {
          200: CommentReplyDraftResponse,
          ...errorResponses(
            'invalid_public_comment_reply_draft_request',
            'social_comment_not_found',
            'social_comment_write_disabled',
            'provider_rate_limited',
            'provider_request_failed',
          ),
        },
      },
    },
    async (request) => m.drafts.draft(org(request), request.body),
  );
}
