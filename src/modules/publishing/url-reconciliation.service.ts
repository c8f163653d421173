/**
 * Fills in the public URL of published targets whose publish answer carried none, through each
 * adapter's fetchPermalink. A dry run lists what would be fetched and calls no platform.
 */
import { AppError } from '../../platform/errors.js';
import type { ChannelGateway } from './channel-gateway.js';
import { TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import type { UrlReconciliationBodyT } from './publishing.schemas.js';

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
      const job = await db
        .selectFrom('publish_jobs')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('id', '=', body.publishJobId)
        .executeTakeFirst();
      if (!job)
        throw new AppError('public_publish_job_not_found', {
          message: `No publish job ${body.publishJobId} in the principal organization.`,
        });
    }
    let q = db
      .selectFrom('publish_targets')
      .select(['id', 'job_id', 'channel_account_id', 'platform', 'provider_post_id'])
      .where('organization_id', '=', organizationId)
      .where('state', '=', TRANSITIONS.published.to)
      .where('provider_url', 'is', null)
      .where('provider_post_id', 'is not', null);
    if (body.publishJobId) q = q.where('job_id', '=', body.publishJobId);
    if (body.postTargetIds && body.postTargetIds.length > 0) q = q.where('id', 'in', body.postTargetIds);
    const rows = await q.orderBy('id').limit(MAX_TARGETS).execute();
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
          await db
            .updateTable('publish_targets')
            .set({ provider_url: url, updated_at: this.deps.clock.now() })
            .where('id', '=', r.id)
            .where('provider_url', 'is', null)
            .execute();
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
