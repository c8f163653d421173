/**
 * The automations' BatchCommitter port, implemented with the batch commit: a product_rotation run's
 * items become batch items whose targets are the profile's enabled connected channels (the named
 * profile, else the brand's default profile), placed by the run's batchPolicy or the profile's saved one.
 */
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../../platform/errors.js';
import type { BatchCommitter } from '../automations/automations.module.js';
import type { Db } from '../database.js';
import type { BatchCommits } from './batches.commits.js';
import { PublishBatchCommitRequest, type PublishBatchCommitRequestT } from './batches.schemas.js';

export class RotationBatchCommitter implements BatchCommitter {
  constructor(
    private readonly db: Db,
    private readonly commits: BatchCommits,
  ) {}

  async commit(input: Parameters<BatchCommitter['commit']>[0]) {
    const db = this.db;
    const { profiles } = this.commits.ports;
    const profileId = input.profileId ?? (await profiles.defaultProfile(db, input.organizationId, input.brandId))?.id;
    const expansion = profileId ? await profiles.expandForPublishing(db, input.organizationId, profileId) : null;
    if (!expansion || expansion.targets.length === 0)
      throw new AppError('invalid_public_publish_batch_request', {
        message: 'product_rotation needs a publishing profile (profileId or the brand default) with enabled connected channels.',
        fields: [{ path: ['profileId'], source: 'body' }],
      });
    const req = Value.Default(PublishBatchCommitRequest, {
      brandId: input.brandId,
      items: input.items.map((item, i) => ({
        clientAssetId: `${input.idempotencyKey}:${i}:${item.productId}`,
        productId: item.productId,
        text: item.text,
        targets: expansion.targets.map((t) => ({
          platform: t.platform,
          channelAccountId: t.channelAccountId,
          ...(t.settings && Object.keys(t.settings).length > 0 ? { settings: t.settings } : {}),
        })),
      })),
      ...(input.policy ? { policy: input.policy } : {}),
      idempotencyKey: input.idempotencyKey,
      source: 'automation',
      dryRun: input.dryRun,
    }) as PublishBatchCommitRequestT;
    const first = [...Value.Errors(PublishBatchCommitRequest, req)][0];
    if (first)
      throw new AppError('invalid_public_publish_batch_request', {
        message: `The rotation's batch is not valid: ${first.path} ${first.message}.`,
        fields: [{ path: first.path.split('/').filter(Boolean), source: 'body' }],
      });
    const answer = await this.commits.commit(input.organizationId, req);
    if (answer.kind === 'dry_run') return { publishBatchId: null, publishJobIds: [] };
    return {
      publishBatchId: answer.batch.publishBatchId,
      publishJobIds: answer.batch.items.map((i) => i.publishJobId).filter((x): x is string => !!x),
    };
  }
}
