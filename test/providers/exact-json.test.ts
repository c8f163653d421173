import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExactJson, quoteLargeIntegers } from '../../src/providers/shared/exact-json.js';

describe('exact JSON integers (TikTok int64 ids)', () => {
  test('an integer beyond 2^53 keeps its digits; small numbers, decimals and strings are untouched', () => {
    const text =
      '{"ids":[7301234567890123457,-7301234567890123457],"n":42,"f":1.5e3,"big":12345678901234567.5,"s":"x 7301234567890123457 \\"q\\""}';
    assert.deepEqual(parseExactJson(text), {
      ids: ['7301234567890123457', '-7301234567890123457'],
      n: 42,
      f: 1500,
      big: 12345678901234568,
      s: 'x 7301234567890123457 "q"',
    });
    assert.notEqual(String(JSON.parse('[7301234567890123457]')[0]), '7301234567890123457');
    assert.equal(quoteLargeIntegers('[123456789012345]'), '[123456789012345]');
  });
});
