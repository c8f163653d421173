/** Publish batch and asset routes (ROUTES.md: Publishing, and Brands, assets, media): thin handlers. */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { organizationOf, publicOrDashboard } from '../../http/dashboard-auth.js';
import { IDEMPOTENT_REPLAY } from '../../http/openapi-headers.js';
import { errorResponses } from '../../http/shared-schemas.js';
import type { BatchCommits } from './batches.commits.js';
import type { BatchReads } from './batches.reads.js';
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

export function registerBatchRoutes(root: FastifyInstance, reads: BatchReads, commits: BatchCommits): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/publish/batches/preview',
    {
      config: { ...publicOrDashboard('publish:read', 'publishing.batches.manage'), validationCode: 'invalid_public_publish_batch_request' },
      schema: {
        operationId: 'previewPublishBatch',
        tags: ['Publishing'],
        summary: 'Spread many product posts over schedule slots (no batch is written; the schedule is kept 24 h under its batchPreviewId)',
        description:
          'Assigns every item target to a slot occurrence (timezone, weekdays, seeded jitter) keeping minGapMinutes per channel, productCooldownMinutes per product and channel, platform 24-hour caps and the 72-hour duplicate text rule. Targets that fit nowhere are unscheduled with a warning naming the rule.',
        body: PublishBatchPreviewRequest,
        response: {
          200: PublishBatchPreview,
          ...errorResponses('invalid_public_publish_batch_request'),
        },
      },
    },
    async (request) => commits.preview(organizationOf(request), request.body),
  );

  app.post(
    '/v1/publish/batches',
    {
      config: {
        ...publicOrDashboard('publish:write', 'publishing.batches.manage'),
        validationCode: 'invalid_public_publish_batch_request',
      },
      schema: {
        operationId: 'commitPublishBatch',
        [IDEMPOTENT_REPLAY]: true,
        tags: ['Publishing'],
        summary: 'Commit a publish batch (dry run by default); 200 dry run or replay of the idempotencyKey, 201 created',
        body: PublishBatchCommitRequest,
        response: {
          200: { anyOf: [PublishBatchDryRun, PublishBatchStatus] },
          201: PublishBatchStatus,
          ...errorResponses(
            'invalid_public_publish_batch_request',
            'publish_job_write_disabled',
            'publish_batch_idempotency_key_reused',
            'publish_batch_preview_expired',
            'publish_batch_preview_mismatch',
            'publish_batch_preview_stale',
          ),
        },
      },
    },
    async (request, reply) => {
      const answer = await commits.commit(organizationOf(request), request.body);
      if (answer.kind === 'dry_run') return reply.code(200).send(answer.body);
      if (answer.kind === 'replayed') return reply.code(200).header('idempotent-replayed', 'true').send(answer.batch);
      return reply.code(201).send(answer.batch);
    },
  );

  app.get(
    '/v1/publish/batches',
    {
      config: { ...publicOrDashboard('publish:read', 'publishing.batches.manage'), validationCode: 'invalid_public_publish_batch_query' },
      schema: {
        operationId: 'listPublishBatches',
        tags: ['Publishing'],
        summary: 'List publish batches (newest first) with their derived status',
        querystring: BatchListQuery,
        response: {
          200: PublishBatchList,
          ...errorResponses('invalid_public_publish_batch_query'),
        },
      },
    },
    async (request) => reads.list(organizationOf(request), request.query),
  );

  app.get(
    '/v1/publish/batches/:publishBatchId',
    {
      config: { ...publicOrDashboard('publish:read', 'publishing.batches.manage'), validationCode: 'invalid_public_publish_batch_query' },
      schema: {
        operationId: 'getPublishBatch',
        tags: ['Publishing'],
        summary: 'A publish batch with every item and target, its status and counts',
        params: BatchParams,
        response: {
          200: PublishBatchStatus,
          ...errorResponses('publish_batch_not_found', 'invalid_public_publish_batch_query'),
        },
      },
    },
    async (request) => reads.get(organizationOf(request), request.params.publishBatchId),
  );

  app.get(
    '/v1/assets',
    {
      config: { ...publicOrDashboard('assets:read', 'publishing.batches.manage'), validationCode: 'invalid_public_asset_query' },
      schema: {
        operationId: 'listAssets',
        tags: ['Assets'],
        summary: 'List assets (one per brand and clientAssetId, made by publish batches), newest first',
        querystring: AssetListQuery,
        response: { 200: AssetList, ...errorResponses('invalid_public_asset_query') },
      },
    },
    async (request) => reads.listAssets(organizationOf(request), request.query),
  );

  app.get(
    '/v1/assets/:assetId',
    {
      config: { ...publicOrDashboard('assets:read', 'publishing.batches.manage'), validationCode: 'invalid_public_asset_query' },
      schema: {
        operationId: 'getAsset',
        tags: ['Assets'],
        summary: 'An asset with its media library ids and the publish targets that used it',
        params: AssetParams,
        response: {
          200: Asset,
          ...errorResponses('asset_not_found', 'invalid_public_asset_query'),
        },
      },
    },
    async (request) => reads.getAsset(organizationOf(request), request.params.assetId),
  );
}
