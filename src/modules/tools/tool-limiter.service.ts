/**
 * Per API key and tool limits: one request at a time, a whole-UTC-minute request limit and a daily quota
 * (reset 00:00 UTC). Counters live in the shared counter store (memory embedded, Redis when configured), so
 * several processes share one budget. Quotas use `consume`, which adds the units only when all of them fit:
 * a refused batch takes nothing. A request makes two calls to the store (`admit` before its work, `settle`
 * after it): on Redis two round trips instead of five (turn, minute, quota read, charge, release), which
 * took the API process's CPU per UTM request from 1.06-1.08 to 0.97 ms (docs/operations.md).
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

export type ToolAdmission =
  | { kind: 'busy' | 'rate_limited'; minuteUsed: number; quotaUsed: number }
  | { kind: 'admitted'; token: string; minuteUsed: number; quotaUsed: number };

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

  /**
   * One request at a time per key and tool, then the request counted in the current UTC minute unless the
   * minute's limit is used up, and today's quota read: one call to the counter store (one Redis round trip).
   * busy: another request of the key runs; rate_limited: the minute is used up (nothing counted, no turn kept).
   */
  async admit(apiKeyId: string, tool: ToolName, limits: TierLimits): Promise<ToolAdmission> {
    const nowMs = this.now();
    const minute = minuteWindow(nowMs);
    const admission = await this.counters.admit(
      { key: this.key(apiKeyId, tool, 'lock'), max: 1, ttlMs: LOCK_TTL_MS },
      { key: this.key(apiKeyId, tool, `m:${minute.id}`), cost: 1, limit: limits.requestsPerMinute, ttlMs: minute.remainingMs + 5_000 },
      this.key(apiKeyId, tool, `d:${dayWindow(nowMs).id}`),
    );
    const used = { minuteUsed: admission.consumed, quotaUsed: admission.read };
    if (admission.outcome === 'admitted' && admission.token !== null) return { kind: 'admitted', token: admission.token, ...used };
    return { kind: admission.outcome === 'busy' ? 'busy' : 'rate_limited', ...used };
  }

  /**
   * Adds `units` to today's quota only when they all fit under the limit (0: reads it), and ends the
   * request's turn: one call to the counter store.
   */
  async settle(apiKeyId: string, tool: ToolName, token: string, units: number, limit: number): Promise<{ allowed: boolean; used: number }> {
    const day = dayWindow(this.now());
    const result = await this.counters.settle(
      { key: this.key(apiKeyId, tool, `d:${day.id}`), cost: units, limit, ttlMs: day.remainingMs + 60_000 },
      { key: this.key(apiKeyId, tool, 'lock'), token },
    );
    return { allowed: result.allowed, used: result.count };
  }

  /** Ends the request's turn without charging anything (refused input, failed work, an error). */
  async release(apiKeyId: string, tool: ToolName, token: string): Promise<void> {
    await this.counters.releaseSlot(this.key(apiKeyId, tool, 'lock'), token);
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
