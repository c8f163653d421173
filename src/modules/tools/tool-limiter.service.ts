/**
 * Per API key and tool limits: one request at a time, a whole-UTC-minute request limit and a daily quota
 * (reset 00:00 UTC). Counters live in the shared counter store (memory embedded, Redis when configured), so
 * several processes share one budget. Quotas use `consume`, which adds the units only when all of them fit:
 * a refused batch takes nothing. A request makes two calls to the store (`admit` before its work, `settle`
 * after it): on Redis two round trips instead of five (turn, minute, quota read, charge, release), which
 * took the API process's CPU per UTM request from 1.06-1.08 to 0.97 ms (docs/operations.md).
 */
import type { Admission, ConsumeResult } from '../../platform/counters/counter-store.js';
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

/** The counter keys of one API key and tool; the window keys are those of the last window used. */
interface KeyNames {
  /** `tools:<api key id>:<tool>:` */
  prefix: string;
  lock: string;
  minuteId: string;
  minute: string;
  dayId: string;
  day: string;
}

/** past this many keys of one tool the name cache starts over (it only saves building strings) */
const KEY_NAMES_MAX = 10_000;

export class ToolLimiter {
  /**
   * The key strings of recent API keys, per tool, built once per window instead of on every request: a
   * string built anew is copied flat and hashed again by every counter-store lookup, a kept one is hashed once.
   */
  private readonly keyNames: Record<ToolName, Map<string, KeyNames>> = { 'utm-builder': new Map(), qrcode: new Map() };

  constructor(
    private readonly counters: CounterStore,
    private readonly now: () => number,
  ) {}

  private names(apiKeyId: string, tool: ToolName): KeyNames {
    const cache = this.keyNames[tool];
    let names = cache.get(apiKeyId);
    if (!names) {
      if (cache.size >= KEY_NAMES_MAX) cache.clear();
      const prefix = `tools:${apiKeyId}:${tool}:`;
      names = { prefix, lock: `${prefix}lock`, minuteId: '', minute: '', dayId: '', day: '' };
      cache.set(apiKeyId, names);
    }
    return names;
  }

  private static minuteKey(names: KeyNames, minuteId: string): string {
    if (names.minuteId !== minuteId) {
      names.minuteId = minuteId;
      names.minute = `${names.prefix}m:${minuteId}`;
    }
    return names.minute;
  }

  private static dayKey(names: KeyNames, dayId: string): string {
    if (names.dayId !== dayId) {
      names.dayId = dayId;
      names.day = `${names.prefix}d:${dayId}`;
    }
    return names.day;
  }

  /**
   * One request at a time per key and tool, then the request counted in the current UTC minute unless the
   * minute's limit is used up, and today's quota read: one call to the counter store (one Redis round trip).
   * busy: another request of the key runs; rate_limited: the minute is used up (nothing counted, no turn kept).
   */
  admit(apiKeyId: string, tool: ToolName, limits: TierLimits): ToolAdmission | Promise<ToolAdmission> {
    const nowMs = this.now();
    const minute = minuteWindow(nowMs);
    const names = this.names(apiKeyId, tool);
    const slot = { key: names.lock, max: 1, ttlMs: LOCK_TTL_MS };
    const consume = {
      key: ToolLimiter.minuteKey(names, minute.id),
      cost: 1,
      limit: limits.requestsPerMinute,
      ttlMs: minute.remainingMs + 5_000,
    };
    const read = ToolLimiter.dayKey(names, dayWindow(nowMs).id);
    // counters in this process answer at once: no promise and no microtask turn on the path of every request
    if (this.counters.admitNow) return toolAdmission(this.counters.admitNow(slot, consume, read));
    return this.counters.admit(slot, consume, read).then(toolAdmission);
  }

  /**
   * Adds `units` to today's quota only when they all fit under the limit (0: reads it), and ends the
   * request's turn: one call to the counter store (answered at once by counters in this process).
   */
  settle(
    apiKeyId: string,
    tool: ToolName,
    token: string,
    units: number,
    limit: number,
  ): { allowed: boolean; used: number } | Promise<{ allowed: boolean; used: number }> {
    const day = dayWindow(this.now());
    const names = this.names(apiKeyId, tool);
    const consume = { key: ToolLimiter.dayKey(names, day.id), cost: units, limit, ttlMs: day.remainingMs + 60_000 };
    const slot = { key: names.lock, token };
    if (this.counters.settleNow) return settled(this.counters.settleNow(consume, slot));
    return this.counters.settle(consume, slot).then(settled);
  }

  /** Ends the request's turn without charging anything (refused input, failed work, an error). */
  async release(apiKeyId: string, tool: ToolName, token: string): Promise<void> {
    await this.counters.releaseSlot(this.names(apiKeyId, tool).lock, token);
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

function toolAdmission(admission: Admission): ToolAdmission {
  const used = { minuteUsed: admission.consumed, quotaUsed: admission.read };
  if (admission.outcome === 'admitted' && admission.token !== null) return { kind: 'admitted', token: admission.token, ...used };
  return { kind: admission.outcome === 'busy' ? 'busy' : 'rate_limited', ...used };
}

function settled(result: ConsumeResult): { allowed: boolean; used: number } {
  return { allowed: result.allowed, used: result.count };
}
