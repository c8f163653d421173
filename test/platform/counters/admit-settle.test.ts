/**
 * The counter stores' one-call admission and settlement (what each tool API request makes of the shared
 * store: one call before its work, one after), on the memory store and, with REDIS_URL, on Redis.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import type { CounterStore } from '../../../src/platform/counters/index.js';
import { MemoryCounterStore } from '../../../src/platform/counters/memory-counter-store.js';
import { RedisCounterStore } from '../../../src/platform/counters/redis-counter-store.js';
import { REAL_REDIS_URL } from '../../support/harness.js';

let clock = Date.parse('2026-06-01T08:00:00.000Z');
const now = () => clock;

const stores: Array<{ name: string; make: () => CounterStore; skip: string | false }> = [
  { name: 'memory', make: () => new MemoryCounterStore(now), skip: false },
  {
    name: 'Redis',
    make: () => new RedisCounterStore(REAL_REDIS_URL ?? '', `test-admit-${randomBytes(6).toString('hex')}:`, now),
    skip: REAL_REDIS_URL ? false : 'REDIS_URL is not set',
  },
];

for (const { name, make, skip } of stores) {
  describe(`admit and settle on the ${name} store`, { skip }, () => {
    const store = skip ? null : make();
    after(() => store?.close());
    const slot = (key: string) => ({ key: `${key}:lock`, max: 1, ttlMs: 60_000 });
    const minute = (key: string, limit: number) => ({ key: `${key}:minute`, cost: 1, limit, ttlMs: 60_000 });
    /** charges `cost` of `key`'s day (limit 100) and ends the turn of `token` */
    const settleDay = (key: string, cost: number, token: string) =>
      store?.settle({ key: `${key}:day`, cost, limit: 100, ttlMs: 60_000 }, { key: `${key}:lock`, token });

    it('admits one at a time: the second is busy, counts nothing and sees the values', async () => {
      assert.ok(store);
      await store.consume('a:day', 7, 100, 60_000);
      const first = await store.admit(slot('a'), minute('a', 5), 'a:day');
      assert.equal(first.outcome, 'admitted');
      assert.ok(first.token);
      assert.deepEqual([first.consumed, first.read], [1, 7]);
      const second = await store.admit(slot('a'), minute('a', 5), 'a:day');
      assert.deepEqual(second, { outcome: 'busy', token: null, consumed: 1, read: 7 });
      assert.equal(await store.get('a:minute'), 1);
      // settling charges the day and ends the turn: the next request is admitted
      assert.deepEqual(await settleDay('a', 3, first.token), { allowed: true, count: 10 });
      const third = await store.admit(slot('a'), minute('a', 5), 'a:day');
      assert.deepEqual([third.outcome, third.consumed, third.read], ['admitted', 2, 10]);
    });

    it('refuses when the counter is used up, keeping no turn and counting nothing', async () => {
      assert.ok(store);
      for (let i = 0; i < 2; i++) {
        const a = await store.admit(slot('b'), minute('b', 2), 'b:day');
        assert.equal(a.outcome, 'admitted');
        await store.releaseSlot('b:lock', a.token ?? '');
      }
      const refused = await store.admit(slot('b'), minute('b', 2), 'b:day');
      assert.deepEqual(refused, { outcome: 'refused', token: null, consumed: 2, read: 0 });
      assert.equal(await store.slotCount('b:lock'), 0);
      assert.equal(await store.get('b:minute'), 2);
    });

    it('settle: a charge that does not fit is refused whole and still ends the turn; cost 0 only reads', async () => {
      assert.ok(store);
      await store.consume('c:day', 95, 100, 60_000);
      const a = await store.admit(slot('c'), minute('c', 10), 'c:day');
      assert.ok(a.token);
      assert.deepEqual(await settleDay('c', 6, a.token), { allowed: false, count: 95 });
      assert.equal(await store.slotCount('c:lock'), 0);
      const b = await store.admit(slot('c'), minute('c', 10), 'c:day');
      assert.ok(b.token);
      assert.deepEqual(await settleDay('c', 0, b.token), { allowed: true, count: 95 });
      assert.equal(await store.get('c:day'), 95);
      assert.equal(await store.slotCount('c:lock'), 0);
    });

    it('a turn never ended frees itself when its lease runs out', async () => {
      assert.ok(store);
      const held = await store.admit({ key: 'd:lock', max: 1, ttlMs: 1_000 }, minute('d', 10), 'd:day');
      assert.equal(held.outcome, 'admitted');
      assert.equal((await store.admit({ key: 'd:lock', max: 1, ttlMs: 1_000 }, minute('d', 10), 'd:day')).outcome, 'busy');
      clock += 1_001;
      assert.equal((await store.admit({ key: 'd:lock', max: 1, ttlMs: 1_000 }, minute('d', 10), 'd:day')).outcome, 'admitted');
    });

    it('the counter read may be the one consumed', async () => {
      assert.ok(store);
      const a = await store.admit(slot('e'), { key: 'e:n', cost: 4, limit: 10, ttlMs: 60_000 }, 'e:n');
      assert.deepEqual([a.outcome, a.consumed, a.read], ['admitted', 4, 4]);
    });
  });
}

describe('the memory store answers admission and settlement at once', () => {
  it('admitNow and settleNow return their answers, not promises, and share the counters with admit and settle', async () => {
    const store = new MemoryCounterStore(now);
    const admitted = store.admitNow(
      { key: 's:lock', max: 1, ttlMs: 60_000 },
      { key: 's:minute', cost: 1, limit: 5, ttlMs: 60_000 },
      's:day',
    );
    assert.ok(!(admitted instanceof Promise));
    assert.equal(admitted.outcome, 'admitted');
    // the turn taken at once is seen by the promise form
    assert.equal(
      (await store.admit({ key: 's:lock', max: 1, ttlMs: 60_000 }, { key: 's:minute', cost: 1, limit: 5, ttlMs: 60_000 }, 's:day')).outcome,
      'busy',
    );
    const settled = store.settleNow({ key: 's:day', cost: 4, limit: 100, ttlMs: 60_000 }, { key: 's:lock', token: admitted.token ?? '' });
    assert.ok(!(settled instanceof Promise));
    assert.deepEqual(settled, { allowed: true, count: 4 });
    assert.equal(await store.slotCount('s:lock'), 0);
    await store.close();
  });
});
