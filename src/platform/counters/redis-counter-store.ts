import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { ConsumeResult, CounterStore } from './counter-store.js';

// consume: add ARGV[1] to KEYS[1] only when the sum stays <= ARGV[2]; set the TTL on first write.
const CONSUME = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[1])
if current + cost > tonumber(ARGV[2]) then return {0, current} end
local after = redis.call('INCRBY', KEYS[1], cost)
if after == cost then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, after}`;

const INCREMENT = `
local after = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return after`;

// slots: a sorted set of lease tokens scored by their expiry time (ms)
const ACQUIRE_SLOT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
return 1`;

const SLOT_COUNT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])`;

// ioredis loads when a Redis store is made (REDIS_URL set): a process without Redis does not hold it
const requireLazily = createRequire(import.meta.url);

export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'service-api:',
    private readonly now: () => number = Date.now,
  ) {
    // fail fast instead of queueing commands forever while Redis is down: callers answer an error and
    // readiness reports redis not ok
    const { Redis: Client } = requireLazily('ioredis') as typeof import('ioredis');
    this.redis = new Client(url, {
      lazyConnect: false,
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.redis.on('error', () => {
      /* surfaced through command errors and ping() */
    });
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  async consume(key: string, cost: number, limit: number, ttlMs: number): Promise<ConsumeResult> {
    const [ok, count] = (await this.redis.eval(CONSUME, 1, this.k(key), cost, limit, Math.max(1, Math.ceil(ttlMs)))) as [number, number];
    return { allowed: ok === 1, count: Number(count) };
  }

  async increment(key: string, by: number, ttlMs: number): Promise<number> {
    return Number(await this.redis.eval(INCREMENT, 1, this.k(key), by, Math.max(1, Math.ceil(ttlMs))));
  }

  async get(key: string): Promise<number> {
    return Number((await this.redis.get(this.k(key))) ?? 0);
  }

  async setFlag(key: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.k(key), '1', 'PX', Math.max(1, Math.ceil(ttlMs)));
  }

  async hasFlag(key: string): Promise<boolean> {
    return (await this.redis.exists(this.k(key))) === 1;
  }

  async deleteKey(key: string): Promise<void> {
    await this.redis.del(this.k(key));
  }

  async acquireSlot(key: string, max: number, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    const ok = await this.redis.eval(ACQUIRE_SLOT, 1, this.k(key), this.now(), max, Math.ceil(ttlMs), token);
    return ok === 1 ? token : null;
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    await this.redis.zrem(this.k(key), token);
  }

  async slotCount(key: string): Promise<number> {
    return Number(await this.redis.eval(SLOT_COUNT, 1, this.k(key), this.now()));
  }

  async ping(): Promise<boolean> {
    try {
      return (
        (await Promise.race([this.redis.ping(), new Promise((_, rej) => setTimeout(() => rej(new Error('timeout')), 1000))])) === 'PONG'
      );
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
