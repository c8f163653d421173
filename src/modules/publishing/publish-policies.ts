/**
 * How fast the engine drives one channel and one platform, by the platform's rate-limit policy. Slots
 * are leases in the shared counter store (Redis in production, so every worker process shares them);
 * a crashed worker's slot frees itself when its lease ends. The per-channel rate is a fixed window of
 * one minute.
 */
import type { CounterStore } from '../../platform/counters/index.js';
import type { RateLimitPolicy } from '../../providers/provider.js';

export interface PolicyLimits {
  /** publishes in flight at once on one channel */
  perChannel: number;
  /** publishes in flight at once on one platform, across all channels and workers */
  perPlatform: number;
  /** publish attempts per channel per minute */
  perChannelPerMinute: number;
}

export const POLICY_LIMITS: Record<RateLimitPolicy, PolicyLimits> = {
  low_concurrency: { perChannel: 1, perPlatform: 16, perChannelPerMinute: 30 },
  standard: { perChannel: 4, perPlatform: 64, perChannelPerMinute: 120 },
  // platforms with tight quotas (YouTube uploads, TikTok Direct Post init: 6 per minute per user)
  strict: { perChannel: 1, perPlatform: 8, perChannelPerMinute: 6 },
};

/** a refusal names the limit: concurrency (platform, channel) frees up as calls end; rate only when the minute ends */
export type SlotAnswer =
  | { ok: true; release: () => Promise<void> }
  | { ok: false; retryInMs: number; reason: string; limit: 'platform' | 'channel' | 'rate' };

export class PublishLimiter {
  constructor(
    private readonly store: () => CounterStore,
    private readonly now: () => number,
    private readonly leaseMs: number,
  ) {}

  async acquire(platform: string, channelAccountId: string, policy: RateLimitPolicy, countRate: boolean): Promise<SlotAnswer> {
    const limits = POLICY_LIMITS[policy];
    const store = this.store();
    const platformKey = `publish:slots:platform:${platform}`;
    const channelKey = `publish:slots:channel:${channelAccountId}`;
    const p = await store.acquireSlot(platformKey, limits.perPlatform, this.leaseMs);
    if (!p)
      return {
        ok: false,
        retryInMs: 500,
        limit: 'platform',
        reason: `platform ${platform} is at its ${limits.perPlatform} concurrent publishes (${policy})`,
      };
    const c = await store.acquireSlot(channelKey, limits.perChannel, this.leaseMs);
    if (!c) {
      await store.releaseSlot(platformKey, p);
      return {
        ok: false,
        retryInMs: 1000,
        limit: 'channel',
        reason: `channel is at its ${limits.perChannel} concurrent publishes (${policy})`,
      };
    }
    if (countRate) {
      const windowMs = 60_000;
      const now = this.now();
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const rate = await store.consume(
        `publish:rate:channel:${channelAccountId}:${windowStart}`,
        1,
        limits.perChannelPerMinute,
        windowMs + 5_000,
      );
      if (!rate.allowed) {
        await store.releaseSlot(channelKey, c);
        await store.releaseSlot(platformKey, p);
        return {
          ok: false,
          retryInMs: windowStart + windowMs - now + 50,
          limit: 'rate',
          reason: `channel is at its ${limits.perChannelPerMinute} publishes per minute (${policy})`,
        };
      }
    }
    return {
      ok: true,
      release: async () => {
        await store.releaseSlot(channelKey, c);
        await store.releaseSlot(platformKey, p);
      },
    };
  }
}
