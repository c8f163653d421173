import type { Admission, ConsumeResult, ConsumeSpec, CounterStore } from './counter-store.js';

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
  /** slot tokens: unique within the process, which is all a memory store serves */
  private nextToken = 0;

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
    return this.consumeNow(key, cost, limit, ttlMs);
  }

  consumeNow(key: string, cost: number, limit: number, ttlMs: number): ConsumeResult {
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
    return this.getNow(key);
  }

  getNow(key: string): number {
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
    return this.acquireSlotNow(key, max, ttlMs);
  }

  private acquireSlotNow(key: string, max: number, ttlMs: number): string | null {
    const set = this.liveSlots(key);
    if (set.size >= max) return null;
    const token = String(++this.nextToken);
    set.set(token, this.now() + ttlMs);
    return token;
  }

  async admit(slot: { key: string; max: number; ttlMs: number }, consume: ConsumeSpec, read: string): Promise<Admission> {
    return this.admitNow(slot, consume, read);
  }

  admitNow(slot: { key: string; max: number; ttlMs: number }, consume: ConsumeSpec, read: string): Admission {
    const readValue = this.live(read)?.value ?? 0;
    const token = this.acquireSlotNow(slot.key, slot.max, slot.ttlMs);
    if (token === null) return { outcome: 'busy', token: null, consumed: this.live(consume.key)?.value ?? 0, read: readValue };
    const result = this.consumeNow(consume.key, consume.cost, consume.limit, consume.ttlMs);
    if (!result.allowed) {
      this.slots.get(slot.key)?.delete(token);
      return { outcome: 'refused', token: null, consumed: result.count, read: readValue };
    }
    // the read counter may be the consumed one
    return { outcome: 'admitted', token, consumed: result.count, read: read === consume.key ? result.count : readValue };
  }

  async settle(consume: ConsumeSpec, slot: { key: string; token: string }): Promise<ConsumeResult> {
    return this.settleNow(consume, slot);
  }

  settleNow(consume: ConsumeSpec, slot: { key: string; token: string }): ConsumeResult {
    const result =
      consume.cost === 0
        ? { allowed: true, count: this.live(consume.key)?.value ?? 0 }
        : this.consumeNow(consume.key, consume.cost, consume.limit, consume.ttlMs);
    this.slots.get(slot.key)?.delete(slot.token);
    return result;
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
