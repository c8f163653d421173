/**
 * The analytics sync (the job `analytics.sync` runs it): every 10 minutes, published targets on analytics platforms get a snapshot
 * at about 1 h, 24 h and 7 d after publish. A target is due when the newest checkpoint it has passed
 * has no snapshot captured at or after it, so a run that was missed catches up with one read, and a
 * repeated run reads nothing twice. Each run reads at most a budget per platform (the oldest due
 * first); a rate-limited platform is left for the next run; channels that need reconnecting are
 * skipped, and a channel whose token the platform refuses is marked reconnect_required.
 */

import { type ProviderCallContext, ProviderError, type SocialProvider } from '../../providers/provider.js';
import type { AppDeps } from '../app-deps.js';
import type { ChannelsTokenProblemsPort } from '../channels/channels.module.js';
import type { Db } from '../database.js';
import { analyticsRepository } from './analytics.repository.js';
import { ANALYTICS_PLATFORMS, type AnalyticsPlatform } from './analytics.schemas.js';
import type { AnalyticsService } from './analytics.service.js';

const HOUR = 3_600_000;
/** after publish: about 1 h, 24 h and 7 d */
const LAST_CHECKPOINT_MS = 7 * 24 * HOUR;
const CHECKPOINTS_MS = [HOUR, 24 * HOUR, LAST_CHECKPOINT_MS] as const;
/** targets published longer ago than the last checkpoint plus this are no longer considered */
const LATE_GRACE_MS = 24 * HOUR;
/** X post lookup allows few reads per 15 minutes on the lower tiers */
const PLATFORM_CAPS: Partial<Record<AnalyticsPlatform, number>> = { x: 15 };

export interface AnalyticsSyncRunResult {
  synced: number;
  failed: number;
  skippedReconnect: number;
  overBudget: number;
  rateLimited: AnalyticsPlatform[];
}

/** The newest checkpoint the target has passed at `now`, as an instant; null before the first. */
function dueCheckpoint(publishedAt: Date, now: Date): Date | null {
  let due: Date | null = null;
  for (const c of CHECKPOINTS_MS) if (publishedAt.getTime() + c <= now.getTime()) due = new Date(publishedAt.getTime() + c);
  return due;
}

export class AnalyticsSync {
  constructor(
    private readonly deps: Pick<AppDeps, 'database' | 'config'> & { tokenProblems: ChannelsTokenProblemsPort },
    private readonly service: AnalyticsService,
  ) {}

  /** One run at `now`: reads the due snapshots within the budget (per platform) and stores them. */
  async run(now: Date, opts: { budgetPerPlatform?: number } = {}): Promise<AnalyticsSyncRunResult> {
    const { deps, service } = this;
    const db = deps.database.db;
    const budget = opts.budgetPerPlatform ?? deps.config.env.SERVICE_ANALYTICS_SYNC_BUDGET_PER_PLATFORM;
    const result: AnalyticsSyncRunResult = { synced: 0, failed: 0, skippedReconnect: 0, overBudget: 0, rateLimited: [] };
    const oldest = new Date(now.getTime() - LAST_CHECKPOINT_MS - LATE_GRACE_MS);
    const newest = new Date(now.getTime() - HOUR);
    // across organizations: this is the worker's own sweep; every read and write below is scoped by the row's organization
    const published = await service.targets.publishedBetween(db, {
      platforms: ANALYTICS_PLATFORMS,
      from: oldest,
      to: newest,
      limit: 5_000,
    });

    const byOrg = new Map<string, { targets: string[]; channels: Set<string> }>();
    for (const t of published) {
      const org = byOrg.get(t.organizationId) ?? { targets: [], channels: new Set<string>() };
      org.targets.push(t.postTargetId);
      org.channels.add(t.channelAccountId);
      byOrg.set(t.organizationId, org);
    }
    const latest = new Map<string, Date>();
    const channelStates = new Map<string, string>();
    for (const [org, { targets, channels }] of byOrg) {
      for (const [id, at] of await analyticsRepository.latestCaptureByTarget(db, org, targets)) latest.set(id, at);
      for (const [id, facts] of await service.channels.factsForPublishing(db, org, [...channels]))
        channelStates.set(`${org}/${id}`, facts.state);
    }
    // a target is considered with its channel's state (a published target always has its channel row)
    const candidates = published.flatMap((t) => {
      const channelState = channelStates.get(`${t.organizationId}/${t.channelAccountId}`);
      return channelState === undefined ? [] : [{ ...t, channelState }];
    });

    const spent = new Map<string, number>();
    const stoppedPlatforms = new Set<string>();
    const stoppedChannels = new Set<string>();
    const contexts = new Map<string, { provider: SocialProvider; ctx: ProviderCallContext }>();

    for (const t of candidates) {
      const platform = t.platform as AnalyticsPlatform;
      const due = dueCheckpoint(new Date(t.publishedAt!), now);
      if (!due) continue;
      const last = latest.get(t.postTargetId);
      if (last && last.getTime() >= due.getTime()) continue;
      if (!service.channels.isUsable(t.channelState) || stoppedChannels.has(t.channelAccountId)) {
        result.skippedReconnect += 1;
        continue;
      }
      if (stoppedPlatforms.has(platform)) continue;
      const cap = Math.min(budget, PLATFORM_CAPS[platform] ?? budget);
      if ((spent.get(platform) ?? 0) >= cap) {
        result.overBudget += 1;
        continue;
      }
      spent.set(platform, (spent.get(platform) ?? 0) + 1);
      try {
        let channel = contexts.get(t.channelAccountId);
        if (!channel) {
          channel = await service.channels.usableChannel(db, t.organizationId, t.channelAccountId);
          contexts.set(t.channelAccountId, channel);
        }
        const row = await service.read(
          channel.provider,
          channel.ctx,
          {
            organizationId: t.organizationId,
            brandId: t.brandId,
            channelAccountId: t.channelAccountId,
            platform,
            postTargetId: t.postTargetId,
            providerPostId: t.providerPostId,
            capturedAt: now,
          },
          'schedule',
        );
        await service.store(db, row);
        result.synced += 1;
      } catch (err) {
        if (err instanceof ProviderError && err.category === 'rate_limited') {
          stoppedPlatforms.add(platform);
          result.rateLimited.push(platform);
          continue;
        }
        if (err instanceof ProviderError && err.category === 'auth_expired') {
          stoppedChannels.add(t.channelAccountId);
          await markReconnect(db, deps.tokenProblems, t.organizationId, t.channelAccountId, now);
        } else if (!(err instanceof ProviderError)) {
          // channel_account_not_connected (no usable token): leave the channel for this run
          stoppedChannels.add(t.channelAccountId);
        }
        result.failed += 1;
      }
    }
    return result;
  }
}

async function markReconnect(
  db: Db,
  channels: ChannelsTokenProblemsPort,
  organizationId: string,
  channelAccountId: string,
  now: Date,
): Promise<void> {
  await db
    .transaction()
    .execute(async (tx) => {
      // as before: the state changes without a webhook event
      await channels.markTokenProblem(tx, organizationId, channelAccountId, 'reconnect_required', 'token_refused', now, { event: false });
    })
    .catch(() => undefined);
}
