/**
 * Media library routes (ROUTES.md "Brands, assets, media"). Thin: schema in, one service call, answer
 * out. Upload accepts JSON (MediaUploadRequest) or multipart/form-data (field `file`, plus `brandId`
 * and `altText`); the multipart file is streamed to a spool file and cut at the maximum.
 */
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { principalOf } from '../../http/public-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';

import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import {
  MediaImportDryRun,
  MediaImportRequest,
  MediaLibraryItem,
  MediaList,
  MediaListQuery,
  MediaParams,
  MediaUploadRequest,
  type MediaUploadRequestT,
} from './media.schemas.js';
import { type MediaContentServices, registerMediaContentRoute } from './media-content.routes.js';
import type { MediaImportService } from './media-import.service.js';
import { type MultipartUploadServices, readMultipartUpload } from './media-multipart.js';

const UPLOAD_ERRORS = [
  'invalid_public_media_upload_request',
  'invalid_multipart_media_upload',
  'multipart_media_file_required',
  'media_file_too_large',
  'media_upload_write_disabled',
  'organization_not_found',
  'brand_not_found',
] as const;

/** The services the routes call (the area's module is one). */
export interface MediaRouteServices extends MediaContentServices, MultipartUploadServices {
  imports: MediaImportService;
  maxJsonUploadBytes: number;
}

export async function registerMediaRoutes(root: FastifyInstance, clock: Clock, module: MediaRouteServices): Promise<void> {
  root.addSchema(MediaLibraryItem);
  const { media, imports } = module;
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  await app.register(async (scope) => registerUploadRoute(scope, module));

  app.post(
    '/v1/media/import',
    {
      config: { auth: { scope: 'media:write' }, validationCode: 'invalid_public_media_upload_request' },
      schema: {
        operationId: 'importMedia',
        tags: ['Media'],
        summary: 'Import media from a remote URL (dry run by default)',
        description:
          'Fetches through the guarded outbound client (public addresses only, checked after DNS and on every redirect, at most 5; 60 s; maxBytes). Budgets: 30 requests/60 s per client address, 20/3600 s per principal, 268435456 bytes/3600 s per organization, 8 concurrent imports in total and 2 per organization (75 s lease); exceeding one answers 429 public_api_rate_limited with Retry-After.',
        body: MediaImportRequest,
        response: {
          200: itemOrDryRun(),
          201: itemRef(),
          ...errorResponses('media_import_url_refused', 'media_import_fetch_failed', ...UPLOAD_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const outcome = await imports.import(
        { clientAddress: request.ip, principalKey: `${principal.kind}:${principal.subjectId}`, organizationId: principal.organizationId },
        request.body,
      );
      if (outcome.kind === 'dry_run') return reply.code(200).send(outcome.body);
      return reply.code(outcome.created ? 201 : 200).send(outcome.item);
    },
  );

  app.get(
    '/v1/media',
    {
      config: { ...publicOrDashboard('media:read', 'publishing.jobs.read'), validationCode: 'invalid_public_media_query' },
      schema: {
        operationId: 'listMedia',
        tags: ['Media'],
        summary: 'List media library items',
        querystring: MediaListQuery,
        response: { 200: MediaList },
      },
    },
    async (request) => media.list(organizationOf(request), request.query),
  );

  app.get(
    '/v1/media/:mediaLibraryItemId',
    {
      config: { ...publicOrDashboard('media:read', 'publishing.jobs.read'), validationCode: 'invalid_public_media_query' },
      schema: {
        operationId: 'getMedia',
        tags: ['Media'],
        summary: 'Get a media library item',
        params: MediaParams,
        response: {
          200: itemRef(),
          ...errorResponses('media_library_item_not_found'),
        },
      },
    },
    async (request) => media.get(organizationOf(request), request.params.mediaLibraryItemId),
  );

  app.delete(
    '/v1/media/:mediaLibraryItemId',
    {
      config: { auth: { scope: 'media:write' }, validationCode: 'invalid_public_media_delete_request' },
      schema: {
        operationId: 'deleteMedia',
        tags: ['Media'],
        summary: 'Delete a media library item (bytes and row are removed by a background job)',
        params: MediaParams,
        response: {
          202: itemRef(),
          ...errorResponses('media_library_item_not_found', 'media_item_in_use', 'media_upload_write_disabled'),
        },
      },
    },
    async (request, reply) => {
      media.assertUploadsEnabled();
      const item = await media.delete(organizationOf(request), request.params.mediaLibraryItemId);
      return reply.code(202).send(item);
    },
  );

  registerMediaContentRoute(app, clock, module);
}

function itemRef() {
  return { $ref: 'MediaLibraryItem' } as const;
}

function itemOrDryRun() {
  return {
    anyOf: [{ $ref: 'MediaLibraryItem' }, MediaImportDryRun],
    description: 'A dry run, or the existing item when the same bytes are already in the library.',
  };
}

const MultipartUploadDoc = {
  $id: 'MediaUploadMultipart',
  type: 'object',
  required: ['file'],
  description: 'multipart/form-data: `file` (the media, required, non-empty), `brandId` and `altText` (optional text fields)',
  properties: {
    file: { type: 'string', contentEncoding: 'binary', description: 'the media bytes (non-empty)' },
    brandId: { type: 'string' },
    altText: { type: 'string' },
  },
};

async function registerUploadRoute(scope: FastifyInstance, module: MediaRouteServices): Promise<void> {
  await scope.register(multipart);
  // Anything that is neither JSON nor multipart is a malformed multipart upload (specification, Behaviours 4).
  scope.addContentTypeParser('*', (_request: FastifyRequest, _payload: unknown, done: (err: Error | null, body?: unknown) => void) => {
    done(
      new AppError('invalid_multipart_media_upload', {
        message: 'Send multipart/form-data with a file field, or a JSON MediaUploadRequest.',
      }),
    );
  });
  const jsonLimit = Math.ceil((module.maxJsonUploadBytes * 4) / 3) + 64 * 1024;
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/v1/media',
    {
      config: { ...publicOrDashboard('media:write', 'publishing.drafts.manage'), validationCode: 'invalid_public_media_upload_request' },
      bodyLimit: jsonLimit,
      schema: {
        operationId: 'uploadMedia',
        tags: ['Media'],
        summary: 'Upload media (JSON base64 or multipart/form-data)',
        description: `JSON MediaUploadRequest, or multipart/form-data with a non-empty \`file\` field plus optional \`brandId\` and \`altText\` fields. The type is decided from the bytes. The same bytes already in the organization answer 200 with the existing item. Maximum size: SERVICE_MEDIA_MAX_UPLOAD_BYTES (default ${268_435_456}).`,
        body: {
          content: {
            'application/json': { schema: MediaUploadRequest },
            // documented only: multipart bodies are streamed and checked in the handler
            'multipart/form-data': { schema: MultipartUploadDoc },
          },
        },
        response: { 200: itemRef(), 201: itemRef(), ...errorResponses(...UPLOAD_ERRORS) },
      },
      preValidation: async (request) => {
        // the multipart body is streamed (and its file checked) in the handler; the documented schema sees a placeholder
        if (request.isMultipart()) (request as { body: unknown }).body = { file: '' };
      },
      onRequest: async (request) => {
        const declared = Number(request.headers['content-length']);
        if (!request.headers['content-type']?.startsWith('multipart/') && declared > jsonLimit) {
          throw new AppError('media_file_too_large', {
            message: `A JSON base64 upload may carry at most ${module.maxJsonUploadBytes} bytes; send larger files (up to ${module.maxUploadBytes} bytes) as multipart/form-data.`,
          });
        }
      },
    },
    async (request, reply) => uploadHandler(request as FastifyRequest<{ Body: MediaUploadRequestT }>, reply, module),
  );
}

async function uploadHandler(request: FastifyRequest<{ Body: MediaUploadRequestT }>, reply: FastifyReply, module: MediaRouteServices) {
  const organizationId = organizationOf(request);
  module.media.assertUploadsEnabled();
  const result = request.isMultipart()
    ? await readMultipartUpload(request, module).then(({ spooled, fields }) => module.media.uploadSpooled(organizationId, spooled, fields))
    : await module.media.uploadJson(organizationId, request.body);
  return reply.code(result.created ? 201 : 200).send(result.item);
}
