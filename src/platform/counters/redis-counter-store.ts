import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Admission, ConsumeResult, ConsumeSpec, CounterStore } from './counter-store.js';

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

// admit: KEYS[1] the slots, KEYS[2] the counter to consume, KEYS[3] the counter to read;
// ARGV: now, max slots, slot ttl, token, cost, limit, counter ttl. Returns {outcome, consumed, read}:
// outcome 0 busy, 1 refused (no slot kept), 2 admitted.
const ADMIT = `
local now = tonumber(ARGV[1])
local read = tonumber(redis.call('GET', KEYS[3]) or '0')
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return {0, current, read} end
local cost = tonumber(ARGV[5])
if current + cost > tonumber(ARGV[6]) then return {1, current, read} end
local after = redis.call('INCRBY', KEYS[2], cost)
if after == cost then redis.call('PEXPIRE', KEYS[2], ARGV[7]) end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
if KEYS[3] == KEYS[2] then read = after end
return {2, after, read}`;

// settle: KEYS[1] the counter, KEYS[2] the slots; ARGV: cost (0: read only), limit, counter ttl, token
const SETTLE = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[1])
local result = {1, current}
if cost > 0 then
  if current + cost > tonumber(ARGV[2]) then
    result = {0, current}
  else
    local after = redis.call('INCRBY', KEYS[1], cost)
    if after == cost then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
    result = {1, after}
  end
end
redis.call('ZREM', KEYS[2], ARGV[4])
return result`;

/** The scripts as commands: ioredis sends each by its SHA1 (EVALSHA) and loads it once when Redis lacks it. */
interface ScriptCommands {
  counterConsume(key: string, cost: number, limit: number, ttlMs: number): Promise<[number, number]>;
  counterIncrement(key: string, by: number, ttlMs: number): Promise<number>;
  slotAcquire(key: string, now: number, max: number, ttlMs: number, token: string): Promise<number>;
  slotCount(key: string, now: number): Promise<number>;
  admit(
    slots: string,
    counter: string,
    read: string,
    now: number,
    max: number,
    slotTtlMs: number,
    token: string,
    cost: number,
    limit: number,
    ttlMs: number,
  ): Promise<[number, number, number]>;
  settle(counter: string, slots: string, cost: number, limit: number, ttlMs: number, token: string): Promise<[number, number]>;
}

// ioredis loads when a Redis store is made (REDIS_URL set): a process without Redis does not hold it
const requireLazily = createRequire(import.meta.url);

export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  readonly redis: Redis;
  private readonly scripts: ScriptCommands;

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
      // commands issued in the same turn of the event loop (concurrent requests' auth versions, admits,
      // settles) leave in one write and their answers arrive in one read; each keeps its order and answer
      enableAutoPipelining: true,
    });
    this.redis.on('error', () => {
      /* surfaced through command errors and ping() */
    });
    this.redis.defineCommand('counterConsume', { numberOfKeys: 1, lua: CONSUME });
    this.redis.defineCommand('counterIncrement', { numberOfKeys: 1, lua: INCREMENT });
    this.redis.defineCommand('slotAcquire', { numberOfKeys: 1, lua: ACQUIRE_SLOT });
    this.redis.defineCommand('slotCount', { numberOfKeys: 1, lua: SLOT_COUNT });
    this.redis.defineCommand('admit', { numberOfKeys: 3, lua: ADMIT });
    this.redis.defineCommand('settle', { numberOfKeys: 2, lua: SETTLE });
    this.scripts = this.redis as unknown as ScriptCommands;
  }

  private static ttl(ms: number): number {
    return Math.max(1, Math.ceil(ms));
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  async consume(key: string, cost: number, limit: number, ttlMs: number): Promise<ConsumeResult> {
    const [ok, count] = await this.scripts.counterConsume(this.k(key), cost, limit, RedisCounterStore.ttl(ttlMs));
    return { allowed: ok === 1, count: Number(count) };
  }

  async increment(key: string, by: number, ttlMs: number): Promise<number> {
    return Number(await this.scripts.counterIncrement(this.k(key), by, RedisCounterStore.ttl(ttlMs)));
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
    const ok = await this.scripts.slotAcquire(this.k(key), this.now(), max, Math.ceil(ttlMs), token);
    return Number(ok) === 1 ? token : null;
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    await this.redis.zrem(this.k(key), token);
  }

  async slotCount(key: string): Promise<number> {
    return Number(await this.scripts.slotCount(this.k(key), this.now()));
  }

  async admit(slot: { key: string; max: number; ttlMs: number }, consume: ConsumeSpec, read: string): Promise<Admission> {
    const token = randomUUID();
    const [outcome, consumed, readValue] = await this.scripts.admit(
      this.k(slot.key),
      this.k(consume.key),
      this.k(read),
      this.now(),
      slot.max,
      Math.ceil(slot.ttlMs),
      token,
      consume.cost,
      consume.limit,
      RedisCounterStore.ttl(consume.ttlMs),
    );
    const o = Number(outcome);
    return {
      outcome: o === 2 ? 'admitted' : o === 1 ? 'refused' : 'busy',
      token: o === 2 ? token : null,
      consumed: Number(consumed),
      read: Number(readValue),
    };
  }

  async settle(consume: ConsumeSpec, slot: { key: string; token: string }): Promise<ConsumeResult> {
    const [ok, count] = await this.scripts.settle(
      this.k(consume.key),
      this.k(slot.key),
      consume.cost,
      consume.limit,
      RedisCounterStore.ttl(consume.ttlMs),
      slot.token,
    );
    return { allowed: Number(ok) === 1, count: Number(count) };
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
