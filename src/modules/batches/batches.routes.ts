/** Publish batch and asset routes (ROUTES.md: Publishing, and Brands, assets, media): thin handlers. */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IDEMPOTENT_REPLAY } from '../../http/openapi-headers.js';
import { principalOf } from '../../http/public-auth.js';
import { errorResponses, PUBLIC_AUTH_ERRORS } from '../../http/shared-schemas.js';
import {
  Asset,
  AssetList,
  AssetListQuery,
  AssetParams,
  BatchListQuery,
  BatchParams,
  PublishBatchCommitRequest,
  PublishBatchDryRun,
  PublishBatchList,
  PublishBatchPreview,
  PublishBatchPreviewRequest,
  PublishBatchStatus,
} from './batches.schemas.js';
import type { BatchesService } from './batches.service.js';

const security = [{ publicBearer: [] }];

export function registerBatchRoutes(root: FastifyInstance, service: BatchesService): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/publish/batches/preview',
    {
      config: { auth: { scope: 'publish:read' }, validationCode: 'invalid_public_publish_batch_request' },
      schema: {
        operationId: 'previewPublishBatch',
        tags: ['Publishing'],
        summary: 'Spread many product posts over schedule slots (nothing is persisted)',
        description:
          'Assigns every item target to a slot occurrence (timezone, weekdays, seeded jitter) keeping minGapMinutes per channel, productCooldownMinutes per product and channel, platform 24-hour caps and the 72-hour duplicate text rule. Targets that fit nowhere are unscheduled with a warning naming the rule.',
        security,
        body: PublishBatchPreviewRequest,
        response: { 200: PublishBatchPreview, ...errorResponses('invalid_public_publish_batch_request', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => service.preview(principalOf(request).organizationId, request.body),
  );

  app.post(
    '/v1/publish/batches',
    {
      config: { auth: { scope: 'publish:write' }, validationCode: 'invalid_public_publish_batch_request' },
      schema: {
        operationId: 'commitPublishBatch',
        [IDEMPOTENT_REPLAY]: true,
        tags: ['Publishing'],
        summary: 'Commit a publish batch (dry run by default); 200 dry run or replay of the idempotencyKey, 201 created',
        security,
        body: PublishBatchCommitRequest,
        response: {
          200: { anyOf: [PublishBatchDryRun, PublishBatchStatus] },
          201: PublishBatchStatus,
          ...errorResponses(
            'invalid_public_publish_batch_request',
            'publish_job_write_disabled',
            'publish_batch_idempotency_key_reused',
            ...PUBLIC_AUTH_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const answer = await service.commit(principalOf(request).organizationId, request.body);
      if (answer.kind === 'dry_run') return reply.code(200).send(answer.body);
      if (answer.kind === 'replayed') return reply.code(200).header('idempotent-replayed', 'true').send(answer.batch);
      return reply.code(201).send(answer.batch);
    },
  );

  app.get(
    '/v1/publish/batches',
    {
      config: { auth: { scope: 'publish:read' }, validationCode: 'invalid_public_publish_batch_query' },
      schema: {
        operationId: 'listPublishBatches',
        tags: ['Publishing'],
        summary: 'List publish batches (newest first) with their derived status',
        security,
        querystring: BatchListQuery,
        response: { 200: PublishBatchList, ...errorResponses('invalid_public_publish_batch_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => service.list(principalOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/publish/batches/:publishBatchId',
    {
      config: { auth: { scope: 'publish:read' }, validationCode: 'invalid_public_publish_batch_query' },
      schema: {
        operationId: 'getPublishBatch',
        tags: ['Publishing'],
        summary: 'A publish batch with every item and target, its status and counts',
        security,
        params: BatchParams,
        response: {
          200: PublishBatchStatus,
          ...errorResponses('publish_batch_not_found', 'invalid_public_publish_batch_query', ...PUBLIC_AUTH_ERRORS),
        },
      },
    },
    async (request) => service.get(principalOf(request).organizationId, request.params.publishBatchId),
  );

  app.get(
    '/v1/assets',
    {
      config: { auth: { scope: 'assets:read' }, validationCode: 'invalid_public_asset_query' },
      schema: {
        operationId: 'listAssets',
        tags: ['Assets'],
        summary: 'List assets (one per brand and clientAssetId, made by publish batches), newest first',
        security,
        querystring: AssetListQuery,
        response: { 200: AssetList, ...errorResponses('invalid_public_asset_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => service.listAssets(principalOf(request).organizationId, request.query),
  );

  app.get(
    '/v1/assets/:assetId',
    {
      config: { auth: { scope: 'assets:read' }, validationCode: 'invalid_public_asset_query' },
      schema: {
        operationId: 'getAsset',
        tags: ['Assets'],
        summary: 'An asset with its media library ids and the publish targets that used it',
        security,
        params: AssetParams,
        response: { 200: Asset, ...errorResponses('asset_not_found', 'invalid_public_asset_query', ...PUBLIC_AUTH_ERRORS) },
      },
    },
    async (request) => service.getAsset(principalOf(request).organizationId, request.params.assetId),
  );
}
