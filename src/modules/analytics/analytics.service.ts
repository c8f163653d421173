/**
 * Analytics: reads a published post's metrics through its platform adapter and keeps each read as an
 * append-only snapshot. A metric the platform did not report is null, never 0.
 */

import { decodeTimeCursor, page } from '../../http/pagination.js';
import { providerFailure } from '../../http/provider-failure.js';
import { encodeTimeKey } from '../../platform/db/keyset.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { type ProviderCallContext, ProviderError, type SocialProvider } from '../../providers/provider.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { Executor } from '../database.js';
import type { PublishTargetsReadPort } from '../publishing/publishing.module.js';
import { analyticsRepository as repo, type SnapshotRow } from './analytics.repository.js';
import {
  type AnalyticsPlatform,
  type AnalyticsSnapshotQueryT,
  type AnalyticsSnapshotT,
  type ProviderAnalyticsSyncRequestT,
  SNAPSHOT_ID_PREFIX,
} from './analytics.schemas.js';

function toSnapshot(r: SnapshotRow): AnalyticsSnapshotT {
  return {
    analyticsSnapshotId: r.id,
    organizationId: r.organization_id,
    brandId: r.brand_id,
    channelAccountId: r.channel_account_id,
    platform: r.platform as AnalyticsPlatform,
    postTargetId: r.post_target_id,
    providerPostId: r.provider_post_id,
    capturedAt: new Date(r.captured_at).toISOString(),
    metrics: r.metrics,
    source: r.source,
  };
}

const bodyField = (name: string) => [{ path: [name], source: 'body' as const }];

/** A platform failure as an answer, without the platform's raw body. */
function analyticsProviderFailure(err: ProviderError): AppError {
  return providerFailure(err, {
    categories: ['user_content', 'platform_rejected'],
    answer: (e, details) =>
      new AppError('invalid_public_analytics_sync_request', {
        message: `${e.platform} did not answer metrics for this post: ${e.message}`,
        details: { ...details },
        fields: bodyField('providerPostId'),
      }),
  });
}

export interface SnapshotInput {
  organizationId: string;
  brandId: string;
  channelAccountId: string;
  platform: AnalyticsPlatform;
  postTargetId: string | null;
  providerPostId: string;
  capturedAt: Date;
}

/** The other areas' reads analytics uses (their owners answer; analytics reads only its own table). */
export interface AnalyticsReads {
  channels: ChannelsReadPort;
  brands: BrandsReadPort;
  /** publishing's published targets */
  targets: PublishTargetsReadPort;
}

export class AnalyticsService {
  readonly channels: ChannelsReadPort;
  readonly targets: PublishTargetsReadPort;
  private readonly brands: BrandsReadPort;

  constructor(
    private readonly deps: Pick<AppDeps, 'database' | 'clock'>,
    reads: AnalyticsReads,
  ) {
    this.channels = reads.channels;
    this.targets = reads.targets;
    this.brands = reads.brands;
  }

  private get db() {
    return this.deps.database.db;
  }

  async list(organizationId: string, q: AnalyticsSnapshotQueryT) {
    const code = 'invalid_public_analytics_snapshot_query';
    const limit = q.limit ?? 50;
    const from = q.from ? new Date(q.from) : undefined;
    const to = q.to ? new Date(q.to) : undefined;
    if (from && to && from.getTime() > to.getTime()) {
      throw new AppError(code, { message: '`from` must not be after `to`.', fields: [{ path: ['from'], source: 'query' }] });
    }
    const filters = {
      brandId: q.brandId,
      channelAccountId: q.channelAccountId,
      platform: q.platform,
      postTargetId: q.postTargetId,
      providerPostId: q.providerPostId,
      from: from?.toISOString(),
      to: to?.toISOString(),
    };
    const after = decodeTimeCursor(q.cursor, filters, code);
    const rows = await repo.list(this.db, organizationId, { ...filters, from, to, after, limit });
    const { data, nextCursor } = page(rows, limit, (r) => encodeTimeKey(r.captured_at, r.id), filters);
    return { data: data.map(toSnapshot), nextCursor };
  }

  /** POST /v1/analytics/sync: checks the request against the organization's records, reads, stores unless dryRun. */
  async sync(organizationId: string, body: ProviderAnalyticsSyncRequestT) {
    assertOwnOrganization(organizationId, body.organizationId);
    const channel = (await this.channels.factsForPublishing(this.db, organizationId, [body.channelAccountId])).get(body.channelAccountId);
    if (!channel)
      throw new AppError('channel_account_not_found', {
        message: `No channel account ${body.channelAccountId} in the principal organization.`,
      });
    if (channel.platform !== body.platform) {
      throw new AppError('invalid_public_analytics_sync_request', {
        message: `Channel account ${body.channelAccountId} is a ${channel.platform} channel, not ${body.platform}.`,
        fields: bodyField('platform'),
      });
    }
    if (!(await this.brands.brand(this.db, organizationId, body.brandId)))
      throw new AppError('brand_not_found', { message: `No brand ${body.brandId} in the principal organization.` });
    if (channel.brandId && channel.brandId !== body.brandId) {
      throw new AppError('invalid_public_analytics_sync_request', {
        message: `Channel account ${body.channelAccountId} belongs to another brand.`,
        fields: bodyField('brandId'),
      });
    }
    const postTargetId = body.postTargetId ?? null;
    if (postTargetId) {
      const target = await this.targets.target(this.db, organizationId, postTargetId);
      if (!target || target.channelAccountId !== body.channelAccountId || target.providerPostId !== body.providerPostId) {
        throw new AppError('invalid_public_analytics_sync_request', {
          message: `Publish target ${postTargetId} is not the post ${body.providerPostId} of channel ${body.channelAccountId} in the principal organization.`,
          fields: bodyField('postTargetId'),
        });
      }
    }
    const { provider, ctx } = await this.channels.usableChannel(this.db, organizationId, body.channelAccountId);
    const input: SnapshotInput = {
      organizationId,
      brandId: body.brandId,
      channelAccountId: body.channelAccountId,
      platform: body.platform,
      postTargetId,
      providerPostId: body.providerPostId,
      capturedAt: body.capturedAt ? new Date(body.capturedAt) : this.deps.clock.now(),
    };
    let row: SnapshotRow;
    try {
      row = await this.read(provider, ctx, input, 'api');
    } catch (err) {
      if (err instanceof ProviderError) throw analyticsProviderFailure(err);
      if (err instanceof AppError) throw err;
      throw new AppError('provider_request_failed', { message: `The ${body.platform} call failed.`, details: { platform: body.platform } });
    }
    if (body.dryRun === false) {
      await this.store(this.db, row);
      return { mode: 'stored' as const, snapshot: toSnapshot(row) };
    }
    return { mode: 'dry_run' as const, snapshot: toSnapshot(row) };
  }

  /** One metrics read as a snapshot row (not stored). Throws ProviderError as the adapter does. */
  async read(provider: SocialProvider, ctx: ProviderCallContext, input: SnapshotInput, trigger: 'api' | 'schedule'): Promise<SnapshotRow> {
    if (!provider.fetchPostMetrics) {
      throw new AppError('invalid_public_analytics_sync_request', {
        message: `${provider.platform} has no analytics sync.`,
        fields: bodyField('platform'),
      });
    }
    const read = await provider.fetchPostMetrics(ctx, { providerPostId: input.providerPostId });
    return {
      id: newId(SNAPSHOT_ID_PREFIX),
      organization_id: input.organizationId,
      brand_id: input.brandId,
      channel_account_id: input.channelAccountId,
      platform: input.platform,
      post_target_id: input.postTargetId,
      provider_post_id: input.providerPostId,
      captured_at: input.capturedAt,
      metrics: read.metrics,
      source: { metricNames: read.metricNames, apiVersion: read.apiVersion },
      trigger,
      created_at: this.deps.clock.now(),
    };
  }

  async store(db: Executor, row: SnapshotRow): Promise<void> {
    await repo.insert(db, row);
  }
}
