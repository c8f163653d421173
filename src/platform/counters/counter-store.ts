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

/** A counter to consume: add `cost` to `key` when the sum stays <= `limit` (as `consume`). */
export interface ConsumeSpec {
  key: string;
  cost: number;
  limit: number;
  ttlMs: number;
}

/** What `admit` decided, with the counters' values after it. */
export interface Admission {
  /** busy: every slot taken; refused: the consume did not fit (no slot kept); admitted: slot taken and consumed */
  outcome: 'busy' | 'refused' | 'admitted';
  /** the slot's token when admitted */
  token: string | null;
  /** the consumed counter's value (after the consume when admitted, unchanged otherwise) */
  consumed: number;
  /** the value of the `read` counter */
  read: number;
}

export interface CounterStore {
  readonly kind: 'memory' | 'redis';
  /** Atomically adds `cost` when count + cost <= limit; the key expires ttlMs after it is first set. */
  consume(key: string, cost: number, limit: number, ttlMs: number): Promise<ConsumeResult>;
  /**
   * `consume` answered at once, by a store that keeps its counters in this process (no I/O, so no promise
   * and no failure of a connection to observe); absent on stores behind a network.
   */
  consumeNow?(key: string, cost: number, limit: number, ttlMs: number): ConsumeResult;
  /** `get` answered at once, by a store that keeps its counters in this process (as `consumeNow`). */
  getNow?(key: string): number;
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
  /**
   * One request's admission, atomically and in one round trip: take one of `slot.max` slots; then consume
   * `consume` (the slot is given back when that does not fit); read `read` whatever the outcome.
   */
  admit(slot: { key: string; max: number; ttlMs: number }, consume: ConsumeSpec, read: string): Promise<Admission>;
  /** Consumes `consume` (only reads it when its cost is 0) and releases the slot, in one round trip. */
  settle(consume: ConsumeSpec, slot: { key: string; token: string }): Promise<ConsumeResult>;
  /** `admit` answered at once, by a store that keeps its counters in this process (as `consumeNow`). */
  admitNow?(slot: { key: string; max: number; ttlMs: number }, consume: ConsumeSpec, read: string): Admission;
  /** `settle` answered at once, by a store that keeps its counters in this process (as `consumeNow`). */
  settleNow?(consume: ConsumeSpec, slot: { key: string; token: string }): ConsumeResult;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
