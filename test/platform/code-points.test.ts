/** Code points as text limits count them: the same count as spreading the string, without the array. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countText } from '../../src/modules/publishing/text-count.js';
import { codePointCount } from '../../src/platform/code-points.js';

describe('codePointCount', () => {
  it('counts a surrogate pair once and a lone surrogate once, like [...text].length', () => {
    const cases = [
      '',
      'plain ascii',
      'emoji 😀 and 👍🏽 and flags 🇩🇪',
      'ünïcödé — CJK 漢字',
      '\uD83D', // a lone high surrogate, alone
      'end \uD83D', // at the end
      '\uDE00 start', // a lone low surrogate
      '\uD83D\uD83D\uDE00', // a high before a pair
      '\uDE00\uD83D', // low then high: two lone ones
      'a\uD83D\uDE00b\uD83Dc\uDE00',
    ];
    for (const text of cases) assert.equal(codePointCount(text), [...text].length, JSON.stringify(text));
    assert.equal(countText('😀😀', 'characters'), 2);
  });
});
