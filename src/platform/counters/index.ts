import type { CounterStore } from './counter-store.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import { RedisCounterStore } from './redis-counter-store.js';

export type { CounterStore } from './counter-store.js';

/** The process's counter stores: memory always; Redis when REDIS_URL is set. */
export interface Counters {
  memory: CounterStore;
  redis: CounterStore | null;
  /** the shared store: Redis when configured, memory otherwise */
  shared: CounterStore;
}

export function createCounters(redisUrl: string | undefined, opts: { now?: () => number; prefix?: string } = {}): Counters {
  const memory = new MemoryCounterStore(opts.now);
  const redis = redisUrl ? new RedisCounterStore(redisUrl, opts.prefix ?? 'service-api:', opts.now) : null;
  return { memory, redis, shared: redis ?? memory };
}

export async function closeCounters(c: Counters): Promise<void> {
  await c.memory.close();
  await c.redis?.close();
}
