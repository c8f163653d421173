import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCsv } from '../../web/src/csv.js';

describe('dashboard CSV rows', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, CRLF or LF, and skips blank lines', () => {
    const text = 'product,text,channels\r\nHouse Blend,"Fresh, ""hot"" roast\nsecond line",x|threads\n\nDecaf,plain,x';
    assert.deepEqual(parseCsv(text), [
      ['product', 'text', 'channels'],
      ['House Blend', 'Fresh, "hot" roast\nsecond line', 'x|threads'],
      ['Decaf', 'plain', 'x'],
    ]);
  });
  it('answers no rows for empty input and keeps a last row without a newline', () => {
    assert.deepEqual(parseCsv(''), []);
    assert.deepEqual(parseCsv('a,b,c\n'), [['a', 'b', 'c']]);
  });
});
