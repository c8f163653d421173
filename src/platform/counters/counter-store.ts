/**
 * The shared counter port: rate limits, quotas, budgets, concurrency leases and the negative credential
 * cache all go through it. Memory in the embedded default, Redis when configured, so that processes
 * share one budget in production.
 *
 * Why our own port instead of rate-limiter-flexible alone: quotas need "consume N only if N still
 * fits" with nothing charged on refusal (a UTM batch over the remaining quota must use no quota), and
 * budgets need expiring concurrency slots (a crashed import frees its slot when its lease ends). Both
 * are one atomic Lua script each on Redis and a few lines in memory; the library offers neither.
 */
export interface ConsumeResult {
  allowed: boolean;
  /** the counter's value after the call (unchanged when refused) */
  count: number;
}

export interface CounterStore {
  readonly kind: 'memory' | 'redis';
  /** Atomically adds `cost` when count + cost <= limit; the key expires ttlMs after it is first set. */
  consume(key: string, cost: number, limit: number, ttlMs: number): Promise<ConsumeResult>;
  /** Adds `by` (may be negative) unconditionally; returns the new value. */
  increment(key: string, by: number, ttlMs: number): Promise<number>;
  get(key: string): Promise<number>;
  setFlag(key: string, ttlMs: number): Promise<void>;
  hasFlag(key: string): Promise<boolean>;
  deleteKey(key: string): Promise<void>;
  /** Takes one of `max` slots under `key` for ttlMs; returns a token, or null when all are taken. */
  acquireSlot(key: string, max: number, ttlMs: number): Promise<string | null>;
  releaseSlot(key: string, token: string): Promise<void>;
  /** Number of live slots (expired leases are not counted). */
  slotCount(key: string): Promise<number>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
