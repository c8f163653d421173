import { randomUUID } from 'node:crypto';
import type { ConsumeResult, CounterStore } from './counter-store.js';

interface Entry {
  value: number;
  expiresAt: number;
}

/** In-process counters for the embedded default (one process, so memory is the shared store). */
export class MemoryCounterStore implements CounterStore {
  readonly kind = 'memory' as const;
  private readonly values = new Map<string, Entry>();
  private readonly slots = new Map<string, Map<string, number>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // drop expired keys so long-running processes do not grow without bound
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.values.get(key);
    if (e && e.expiresAt <= this.now()) {
      this.values.delete(key);
      return undefined;
    }
    return e;
  }

  async consume(key: string, cost: number, limit: number, ttlMs: number): Promise<ConsumeResult> {
    const e = this.live(key);
    const current = e?.value ?? 0;
    if (current + cost > limit) return { allowed: false, count: current };
    if (e) e.value = current + cost;
    else this.values.set(key, { value: cost, expiresAt: this.now() + ttlMs });
    return { allowed: true, count: current + cost };
  }

  async increment(key: string, by: number, ttlMs: number): Promise<number> {
    const e = this.live(key);
    if (e) {
      e.value += by;
      return e.value;
    }
    this.values.set(key, { value: by, expiresAt: this.now() + ttlMs });
    return by;
  }

  async get(key: string): Promise<number> {
    return this.live(key)?.value ?? 0;
  }

  async setFlag(key: string, ttlMs: number): Promise<void> {
    this.values.set(key, { value: 1, expiresAt: this.now() + ttlMs });
  }

  async hasFlag(key: string): Promise<boolean> {
    return this.live(key) !== undefined;
  }

  async deleteKey(key: string): Promise<void> {
    this.values.delete(key);
    this.slots.delete(key);
  }

  private liveSlots(key: string): Map<string, number> {
    let set = this.slots.get(key);
    if (!set) {
      set = new Map();
      this.slots.set(key, set);
    }
    const now = this.now();
    for (const [token, exp] of set) if (exp <= now) set.delete(token);
    return set;
  }

  async acquireSlot(key: string, max: number, ttlMs: number): Promise<string | null> {
    const set = this.liveSlots(key);
    if (set.size >= max) return null;
    const token = randomUUID();
    set.set(token, this.now() + ttlMs);
    return token;
  }

  async releaseSlot(key: string, token: string): Promise<void> {
    this.slots.get(key)?.delete(token);
  }

  async slotCount(key: string): Promise<number> {
    return this.liveSlots(key).size;
  }

  async ping(): Promise<boolean> {
    return true;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, e] of this.values) if (e.expiresAt <= now) this.values.delete(k);
    for (const [k, set] of this.slots) {
      for (const [t, exp] of set) if (exp <= now) set.delete(t);
      if (set.size === 0) this.slots.delete(k);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
