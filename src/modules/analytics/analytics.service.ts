/**
 * Analytics: reads a published post's metrics through its channel's adapter and stores append-only
 * snapshots; lists them; and a periodic sweep that reads recently published targets 1 h, 24 h and 7 d
 * after publishing within a per-platform budget.
 */
import type { AppDeps } from '../../app-deps.js';
import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { type ProviderCallContext, ProviderError, type SocialProvider } from '../../providers/provider.js';
import { createProviderRegistry, type ProviderRegistry } from '../../providers/registry.js';
import { resolveChannelContext } from '../channels/channel-context.js';
import { TokenVault } from '../channels/token-vault.js';
import { normalizeMetrics, PLATFORM_METRICS } from './analytics.metrics.js';
import { analyticsRepository, type SnapshotRow } from './analytics.repository.js';
import type { AnalyticsSnapshotT, ProviderAnalyticsSyncRequestT, SnapshotListQueryT } from './analytics.schemas.js';
import { SNAPSHOT_ID_PREFIX } from './analytics.schemas.js';

/** Readings after publishing the sweep takes (ms). */
export const SYNC_MILESTONES_MS = [3_600_000, 86_400_000, 7 * 86_400_000] as const;
/** channel states the sweep reads through; refresh_needed and worse wait for a reconnect */
const SWEEP_STATES = ['connected', 'expiring'];

export interface SweepResult {
  synced: number;
  failed: number;
  skippedOverBudget: number;
  skippedChannels: number;
}

function toSnapshot(r: SnapshotRow): AnalyticsSnapshotT {
  return {
    analyticsSnapshotId: r.id,
    organizationId: r.organization_id,
    brandId: r.brand_id,
    channelAccountId: r.channel_account_id,
    platform: r.platform,
    postTargetId: r.post_target_id,
    providerPostId: r.provider_post_id,
    capturedAt: new Date(r.captured_at).toISOString(),
    metrics: r.metrics,
    source: r.source,
  };
}

function providerFailure(err: ProviderError): AppError {
  const details = { platform: err.platform, providerCategory: err.category, providerCode: err.providerCode };
  if (err.category === 'auth_expired')
    return new AppError('channel_account_not_connected', {
      message: `The ${err.platform} token was refused; reconnect the channel.`,
      details,
    });
  if (err.category === 'rate_limited') {
    const retry = String(err.retryAfterSeconds ?? 60);
    return new AppError('provider_rate_limited', {
      message: `The ${err.platform} rate limit was reached; retry in ${retry} s.`,
      details,
      headers: { 'retry-after': retry },
    });
  }
  return new AppError('provider_request_failed', {
    message: `The ${err.platform} metrics read failed (${err.category}): ${err.message}`,
    details,
  });
}

export class AnalyticsService {
  private readonly registry: ProviderRegistry;
  private readonly vault: TokenVault;

  constructor(private readonly deps: AppDeps) {
    this.registry = createProviderRegistry(deps.config);
    this.vault = new TokenVault(deps.encryptor, deps.config);
  }

  private get db() {
    return this.deps.database.db;
  }

  async list(organizationId: string, q: SnapshotListQueryT) {
    const limit = q.limit ?? 50;
    const filters = {
      brandId: q.brandId,
      channelAccountId: q.channelAccountId,
      postTargetId: q.postTargetId,
      platform: q.platform,
      from: q.from,
      to: q.to,
    };
    if (q.from && q.to && Date.parse(q.from) >= Date.parse(q.to))
      throw new AppError('invalid_public_analytics_snapshot_query', {
        message: '`from` must be before `to`.',
        fields: [{ path: ['from'], source: 'query' }],
      });
    const after = decodeCursor(q.cursor, filters, 'invalid_public_analytics_snapshot_query');
    const rows = await analyticsRepository.list(this.db, organizationId, filters, after, limit);
    const p = page(rows, limit, (r) => r.id, filters);
    return { data: p.data.map(toSnapshot), nextCursor: p.nextCursor };
  }

  /** POST /v1/analytics/sync: reads the metrics now; stores a snapshot unless dryRun (default true). */
  async sync(organizationId: string, req: ProviderAnalyticsSyncRequestT) {
    if (req.organizationId !== organizationId)
      throw new AppError('invalid_request', {
        message: 'organizationId must be the organization of the credential.',
        fields: [{ path: ['organizationId'], source: 'body' }],
      });
    const { channel, provider, ctx } = await resolveChannelContext(
      { db: this.db, vault: this.vault, registry: this.registry },
      organizationId,
      req.channelAccountId,
    );
    if (channel.platform !== req.platform)
      throw new AppError('invalid_request', {
        message: `Channel account ${req.channelAccountId} is a ${channel.platform} channel, not ${req.platform}.`,
        fields: [{ path: ['platform'], source: 'body' }],
      });
    const brandOk = channel.brand_id
      ? channel.brand_id === req.brandId
      : !!(await this.db
          .selectFrom('brands')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('id', '=', req.brandId)
          .executeTakeFirst());
    if (!brandOk)
      throw new AppError('invalid_request', {
        message: `Channel account ${req.channelAccountId} does not belong to brand ${req.brandId}.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    if (req.postTargetId) {
      const target = await this.db
        .selectFrom('publish_targets')
        .select(['id', 'channel_account_id', 'provider_post_id'])
        .where('organization_id', '=', organizationId)
        .where('id', '=', req.postTargetId)
        .executeTakeFirst();
      if (
        !target ||
        target.channel_account_id !== req.channelAccountId ||
        (target.provider_post_id && target.provider_post_id !== req.providerPostId)
      )
        throw new AppError('invalid_request', {
          message: `postTargetId ${req.postTargetId} is not a target of this channel and post in the principal organization.`,
          fields: [{ path: ['postTargetId'], source: 'body' }],
        });
    }
    const snapshot = await this.read(provider, ctx, {
      organizationId,
      brandId: channel.brand_id ?? req.brandId,
      channelAccountId: channel.id,
      platform: channel.platform,
      postTargetId: req.postTargetId ?? null,
      providerPostId: req.providerPostId,
      capturedAt: req.capturedAt ?? null,
    });
    const dryRun = req.dryRun ?? true;
    if (!dryRun) await this.store(snapshot);
    return { mode: dryRun ? ('dry_run' as const) : ('stored' as const), snapshot };
  }

  private async read(
    provider: SocialProvider,
    ctx: ProviderCallContext,
    t: Omit<AnalyticsSnapshotT, 'analyticsSnapshotId' | 'metrics' | 'source' | 'capturedAt'> & { capturedAt: string | null },
  ): Promise<AnalyticsSnapshotT> {
    if (!provider.capability.supportsAnalytics)
      throw new AppError('invalid_request', {
        message: `${t.platform} has no post analytics.`,
        fields: [{ path: ['platform'], source: 'body' }],
      });
    let reported: Awaited<ReturnType<SocialProvider['fetchPostAnalytics']>>;
    try {
      reported = await provider.fetchPostAnalytics(ctx, { providerPostId: t.providerPostId });
    } catch (err) {
      if (err instanceof ProviderError) throw providerFailure(err);
      throw new AppError('provider_request_failed', {
        message: `The ${t.platform} metrics read failed.`,
        details: { platform: t.platform },
      });
    }
    const def = PLATFORM_METRICS[t.platform];
    return {
      analyticsSnapshotId: newId(SNAPSHOT_ID_PREFIX),
      ...t,
      capturedAt: t.capturedAt ? new Date(t.capturedAt).toISOString() : this.deps.clock.now().toISOString(),
      metrics: normalizeMetrics(t.platform, reported.metrics),
      source: { metricNames: Object.keys(reported.metrics), apiVersion: def?.apiVersion ?? 'unknown' },
    };
  }

  private async store(s: AnalyticsSnapshotT): Promise<void> {
    await analyticsRepository.insert(this.db, {
      id: s.analyticsSnapshotId,
      organization_id: s.organizationId,
      brand_id: s.brandId,
      channel_account_id: s.channelAccountId,
      platform: s.platform,
      post_target_id: s.postTargetId,
      provider_post_id: s.providerPostId,
      captured_at: s.capturedAt,
      metrics: JSON.stringify(s.metrics),
      source: JSON.stringify(s.source),
      created_at: this.deps.clock.now(),
    });
  }

  /**
   * One sweep of the periodic job: published targets of the last 8 days whose next milestone (1 h, 24 h,
   * 7 d after publishing) has passed without a snapshot since it, oldest publish first, at most
   * `budget` reads per platform; channels that need reconnecting are skipped, and a channel whose token
   * is refused mid-sweep is not called again in this sweep.
   */
  async sweep(budgetPerPlatform: number): Promise<SweepResult> {
    const now = this.deps.clock.now();
    const horizon = new Date(now.getTime() - SYNC_MILESTONES_MS[2] - 86_400_000);
    const rows = await this.db
      .selectFrom('publish_targets as t')
      .innerJoin('channel_accounts as c', (j) =>
        j.onRef('c.id', '=', 't.channel_account_id').onRef('c.organization_id', '=', 't.organization_id'),
      )
      .select([
        't.id',
        't.organization_id',
        't.brand_id',
        't.channel_account_id',
        't.platform',
        't.provider_post_id',
        't.published_at',
        'c.state as channel_state',
      ])
      .where('t.state', '=', 'published')
      .where('t.provider_post_id', 'is not', null)
      .where('t.published_at', '>=', horizon)
      .where('t.published_at', '<=', new Date(now.getTime() - SYNC_MILESTONES_MS[0]))
      .orderBy('t.published_at')
      .limit(5000)
      .execute();
    const result: SweepResult = { synced: 0, failed: 0, skippedOverBudget: 0, skippedChannels: 0 };
    const used = new Map<string, number>();
    const refused = new Set<string>();
    for (const r of rows) {
      const publishedAt = new Date(r.published_at!).getTime();
      const milestone = [...SYNC_MILESTONES_MS].reverse().find((m) => now.getTime() >= publishedAt + m)!;
      const latest = await this.db
        .selectFrom('analytics_snapshots')
        .select((eb) => eb.fn.max('captured_at').as('at'))
        .where('organization_id', '=', r.organization_id)
        .where('post_target_id', '=', r.id)
        .executeTakeFirst();
      const latestAt = latest?.at ? new Date(latest.at as Date).getTime() : null;
      if (latestAt !== null && latestAt >= publishedAt + milestone) continue;
      if (!SWEEP_STATES.includes(r.channel_state) || refused.has(r.channel_account_id)) {
        result.skippedChannels++;
        continue;
      }
      const n = used.get(r.platform) ?? 0;
      if (n >= budgetPerPlatform) {
        result.skippedOverBudget++;
        continue;
      }
      const provider = this.registry.get(r.platform as never);
      if (!provider.capability.supportsAnalytics) continue;
      used.set(r.platform, n + 1);
      try {
        const { ctx } = await resolveChannelContext(
          { db: this.db, vault: this.vault, registry: this.registry },
          r.organization_id,
          r.channel_account_id,
        );
        const snap = await this.read(provider, ctx, {
          organizationId: r.organization_id,
          brandId: r.brand_id,
          channelAccountId: r.channel_account_id,
          platform: r.platform,
          postTargetId: r.id,
          providerPostId: r.provider_post_id!,
          capturedAt: null,
        });
        await this.store(snap);
        result.synced++;
      } catch (err) {
        result.failed++;
        if (err instanceof AppError && err.code === 'channel_account_not_connected') refused.add(r.channel_account_id);
        if (err instanceof AppError && err.code === 'provider_rate_limited') used.set(r.platform, budgetPerPlatform);
      }
    }
    return result;
  }
}
