/** Ids: `<prefix>_<ULID>`, strictly increasing in one process, their time the time they were made. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeTime } from 'ulid';
import { newId } from '../../src/platform/ids.js';

describe('newId', () => {
  it('is the prefix and a ULID (Crockford base32, 26 characters) whose time is now', () => {
    const before = Date.now();
    const id = newId('pj');
    assert.match(id, /^pj_[0-9A-HJKMNP-TV-Z]{26}$/);
    const at = decodeTime(id.slice(3));
    assert.ok(at >= before && at <= Date.now());
  });

  it('ids made one after another sort in the order they were made, and none repeats', async () => {
    const ids: string[] = [];
    // across many pool refills (4 KiB of random bytes, 16 a new millisecond) and millisecond changes
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 5_000; i++) ids.push(newId('x'));
      await new Promise((r) => setTimeout(r, 2));
    }
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('the random part of each new millisecond uses every symbol of the alphabet', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const id = newId('x');
      // the first random character of an id made in a new millisecond is drawn fresh
      for (const ch of id.slice(2 + 10, 2 + 15)) seen.add(ch);
      await new Promise((r) => setTimeout(r, 1));
    }
    assert.equal(seen.size, 32);
  });
});
