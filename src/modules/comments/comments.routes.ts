/** Social comment routes (ROUTES.md, Analytics and engagement). */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../http/public-auth.js';
import { errorResponses, PUBLIC_AUTH_ERRORS } from '../../http/shared-schemas.js';
import type { CommentsModule } from './comments.module.js';
import {
  COMMENT_SCHEMAS,
  SocialCommentList,
  SocialCommentListQuery,
  SocialCommentProfileSyncRequest,
  SocialCommentProfileSyncResponse,
  SocialCommentSyncRequest,
  SocialCommentSyncResponse,
} from './comments.schemas.js';

const security = [{ publicBearer: [] }];
const tags = ['Social comments'];

export function registerCommentRoutes(root: FastifyInstance, m: CommentsModule): void {
  for (const s of COMMENT_SCHEMAS) root.addSchema(s);
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const svc = m.service;
  const org = (request: Parameters<typeof principalOf>[0]) => principalOf(request).organizationId;

  app.get(
    '/v1/social-comments',
    {
      config: { auth: { scope: 'comments:read' }, validationCode: 'invalid_request' },
      schema: {
        operationId: 'listSocialComments',
        tags,
        summary: 'List synced comments of the organization (filters, cursor pagination)',
        security,
        querystring: SocialCommentListQuery,
        response: { 200: SocialCommentList, ...errorResponses('invalid_request', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => svc.list(org(request), request.query),
  );

  app.post(
    '/v1/social-comments/sync',
    {
      config: { auth: { scope: 'comments:write' }, validationCode: 'invalid_request' },
      schema: {
        operationId: 'syncSocialComments',
        tags,
        summary: "Sync one post's comments through the platform's comment API (dryRun default true)",
        security,
        body: SocialCommentSyncRequest,
        response: {
          200: SocialCommentSyncResponse,
          ...errorResponses(
            'invalid_request',
            'social_comment_write_disabled',
            'brand_not_found',
            'channel_account_not_found',
            'channel_account_not_connected',
            'provider_rate_limited',
            'provider_request_failed',
            ...PUBLIC_AUTH_ERRORS,
          ),
        },
      },
    },
    async (request) => svc.sync(org(request), request.body),
  );

  app.post(
    '/v1/social-comments/sync-profile',
    {
      config: { auth: { scope: 'comments:write' }, validationCode: 'invalid_request' },
      schema: {
        operationId: 'syncProfileSocialComments',
        tags,
        summary: "Sync the comments of a brand's (or profile's) most recent published posts; failures are reported per target",
        security,
        body: SocialCommentProfileSyncRequest,
        response: {
          200: SocialCommentProfileSyncResponse,
          ...errorResponses('invalid_request', 'social_comment_write_disabled', 'brand_not_found', ...PUBLIC_AUTH_ERRORS),
        },
      },
    },
    async (request) => svc.syncProfile(org(request), request.body),
  );
}
