/**
 * Per API key and tool limits: one request at a time, a whole-UTC-minute request limit and a daily quota
 * (reset 00:00 UTC). Counters live in the shared counter store (memory embedded, Redis when configured), so
 * several processes share one budget. Quotas use `consume`, which adds the units only when all of them fit:
 * a refused batch takes nothing.
 */
import type { CounterStore } from '../../platform/counters/index.js';
import type { TierLimits, ToolName } from './tool-limits.js';
import { dayWindow, minuteWindow, retryAfterSeconds } from './tool-windows.js';

interface QuotaState {
  limit: number;
  remaining: number;
  used: number;
  unit: 'links' | 'requests';
  resetAt: string;
}

interface RateLimitState {
  limit: number;
  remaining: number;
  resetAt: string;
}

export interface LimitSnapshot {
  quota: QuotaState;
  rateLimit: RateLimitState;
  /** the two `resetAt` as Unix epoch seconds, for the *-Reset headers */
  resetEpochSeconds: { quota: string; rateLimit: string };
}

/** A lock outlives a crashed request by at most this long. */
const LOCK_TTL_MS = 60_000;

export class ToolLimiter {
  constructor(
    private readonly counters: CounterStore,
    private readonly now: () => number,
  ) {}

  private key(apiKeyId: string, tool: ToolName, part: string): string {
    return `tools:${apiKeyId}:${tool}:${part}`;
  }

  /** One request at a time per key and tool: a release function, or null while another request runs. */
  async acquire(apiKeyId: string, tool: ToolName): Promise<(() => Promise<void>) | null> {
    const lockKey = this.key(apiKeyId, tool, 'lock');
    const token = await this.counters.acquireSlot(lockKey, 1, LOCK_TTL_MS);
    if (token === null) return null;
    return () => this.counters.releaseSlot(lockKey, token);
  }

  /** Counts the request in the current UTC minute unless the minute's limit is used up. */
  async countRequest(apiKeyId: string, tool: ToolName, limits: TierLimits): Promise<{ allowed: boolean; used: number }> {
    const window = minuteWindow(this.now());
    const result = await this.counters.consume(
      this.key(apiKeyId, tool, `m:${window.id}`),
      1,
      limits.requestsPerMinute,
      window.remainingMs + 5_000,
    );
    return { allowed: result.allowed, used: result.count };
  }

  async minuteUsed(apiKeyId: string, tool: ToolName): Promise<number> {
    return this.counters.get(this.key(apiKeyId, tool, `m:${minuteWindow(this.now()).id}`));
  }

  async quotaUsed(apiKeyId: string, tool: ToolName): Promise<number> {
    return this.counters.get(this.key(apiKeyId, tool, `d:${dayWindow(this.now()).id}`));
  }

  /** Adds `units` to today's quota only when they all fit under the limit. */
  async consumeQuota(apiKeyId: string, tool: ToolName, units: number, limit: number): Promise<{ allowed: boolean; used: number }> {
    const window = dayWindow(this.now());
    const key = this.key(apiKeyId, tool, `d:${window.id}`);
    if (units === 0) return { allowed: true, used: await this.counters.get(key) };
    const result = await this.counters.consume(key, units, limit, window.remainingMs + 60_000);
    return { allowed: result.allowed, used: result.count };
  }

  snapshot(limits: TierLimits, tool: ToolName, quotaUsed: number, minuteUsed: number): LimitSnapshot {
    const nowMs = this.now();
    const quotaLimit = limits.dailyQuota[tool];
    const day = dayWindow(nowMs);
    const minute = minuteWindow(nowMs);
    return {
      quota: {
        limit: quotaLimit,
        remaining: Math.max(0, quotaLimit - quotaUsed),
        used: Math.min(quotaUsed, quotaLimit),
        unit: tool === 'utm-builder' ? 'links' : 'requests',
        resetAt: day.resetIso,
      },
      rateLimit: {
        limit: limits.requestsPerMinute,
        remaining: Math.max(0, limits.requestsPerMinute - minuteUsed),
        resetAt: minute.resetIso,
      },
      resetEpochSeconds: { quota: day.resetEpochSeconds, rateLimit: minute.resetEpochSeconds },
    };
  }

  retryAfterMinute(): number {
    return retryAfterSeconds(minuteWindow(this.now()));
  }

  retryAfterDay(): number {
    return retryAfterSeconds(dayWindow(this.now()));
  }
}

/** X-Quota-* and X-RateLimit-*; the *-Reset headers are Unix epoch seconds. */
export function limitHeaders(snapshot: LimitSnapshot): Record<string, string> {
  return {
    'x-quota-limit': String(snapshot.quota.limit),
    'x-quota-remaining': String(snapshot.quota.remaining),
    'x-quota-reset': snapshot.resetEpochSeconds.quota,
    'x-ratelimit-limit': String(snapshot.rateLimit.limit),
    'x-ratelimit-remaining': String(snapshot.rateLimit.remaining),
    'x-ratelimit-reset': snapshot.resetEpochSeconds.rateLimit,
  };
}
