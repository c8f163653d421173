/**
 * Fills in the public URL of published targets whose publish answer carried none, through each
 * adapter's fetchPermalink. A dry run lists what would be fetched and calls no platform.
 */
import { AppError } from '../../platform/errors.js';
import type { ChannelGateway } from './channel-gateway.js';
import type { PublishingDeps } from './publishing.deps.js';
import type { UrlReconciliationBodyT } from './publishing.schemas.js';
import { targetsRepository } from './targets.repository.js';

const MAX_TARGETS = 100;

export class UrlReconciliationService {
  constructor(
    private readonly deps: PublishingDeps,
    private readonly channels: ChannelGateway,
  ) {}

  async run(organizationId: string, body: UrlReconciliationBodyT) {
    const dryRun = body.dryRun ?? true;
    if (!dryRun && !this.deps.config.gateOpen('SERVICE_PUBLISH_URL_RECONCILIATION_ENABLED'))
      throw new AppError('publish_url_reconciliation_disabled');
    const db = this.deps.database.db;
    if (body.publishJobId) {
      const job = await targetsRepository.jobExists(db, organizationId, body.publishJobId);
      if (!job)
        throw new AppError('public_publish_job_not_found', {
          message: `No publish job ${body.publishJobId} in the principal organization.`,
        });
    }
    const rows = await targetsRepository.publishedWithoutUrl(db, organizationId, {
      jobId: body.publishJobId,
      ids: body.postTargetIds,
      limit: MAX_TARGETS,
    });
    const targets = [];
    let updated = 0;
    for (const r of rows) {
      const base = {
        postTargetId: r.id,
        publishJobId: r.job_id,
        channelAccountId: r.channel_account_id,
        platform: r.platform,
        providerPostId: r.provider_post_id!,
      };
      if (dryRun) {
        targets.push({
          ...base,
          providerUrl: null,
          result: 'would_fetch' as const,
          error: null,
        });
        continue;
      }
      try {
        const { provider, ctx } = await this.channels.resolve(organizationId, r.channel_account_id);
        const url = await provider.fetchPermalink(ctx, r.provider_post_id!);
        if (url) {
          await targetsRepository.recordUrl(db, organizationId, r.id, url, this.deps.clock.now());
          updated += 1;
        }
        targets.push({
          ...base,
          providerUrl: url,
          result: url ? ('updated' as const) : ('not_available' as const),
          error: null,
        });
      } catch (err) {
        targets.push({
          ...base,
          providerUrl: null,
          result: 'failed' as const,
          error: (err as Error).message.slice(0, 300),
        });
      }
    }
    return {
      mode: dryRun ? ('dry_run' as const) : ('reconciled' as const),
      checkedCount: rows.length,
      updatedCount: updated,
      targets,
    };
  }
}
