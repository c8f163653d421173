/**
 * timestamptz parsed without pg's regular expressions (src/platform/db/pg-timestamp.ts): every value gives the
 * instant pg's own parser gives, over generated texts in PostgreSQL's output format and over PostgreSQL's
 * own output in time zones with offsets of hours, half hours and (before standard time) seconds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { parseDateSlow, parseTimestamptz, TIMESTAMPTZ_OID } from '../../../src/platform/db/pg-timestamp.js';
import { REAL_DATABASE_URL } from '../../support/harness.js';

const instant = (v: Date | number | null) => (v instanceof Date ? v.getTime() : v);

/** a deterministic sequence of numbers in [0, 1) */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('timestamptz parsing', () => {
  it('is the parser pg uses for timestamptz once the database module is loaded', async () => {
    await import('../../../src/platform/db/database.js');
    assert.equal(pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text'), parseTimestamptz);
    assert.notEqual(parseDateSlow, parseTimestamptz);
  });

  it('gives the instant of pg’s parser for 20,000 generated values in PostgreSQL’s ISO output', () => {
    const next = random(42);
    const pad = (v: number, w = 2) => String(v).padStart(w, '0');
    for (let i = 0; i < 20_000; i++) {
      const year = 100 + Math.floor(next() * 9900);
      const date = `${pad(year, 4)}-${pad(1 + Math.floor(next() * 12))}-${pad(1 + Math.floor(next() * 28))}`;
      const time = `${pad(Math.floor(next() * 24))}:${pad(Math.floor(next() * 60))}:${pad(Math.floor(next() * 60))}`;
      // PostgreSQL trims the fraction's trailing zeros: 0 to 6 digits
      const digits = Math.floor(next() * 7);
      const fraction = digits === 0 ? '' : `.${String(Math.floor(next() * 10 ** digits)).padStart(digits, '0')}`;
      const hours = Math.floor(next() * 15);
      const shape = Math.floor(next() * 3);
      const zone =
        (next() < 0.5 ? '-' : '+') +
        pad(hours) +
        (shape >= 1 ? `:${pad(Math.floor(next() * 60))}` : '') +
        (shape === 2 ? `:${pad(Math.floor(next() * 60))}` : '');
      const text = `${date} ${time}${fraction}${zone}`;
      assert.equal(instant(parseTimestamptz(text)), instant(parseDateSlow(text)), text);
    }
  });

  it('leaves every other form to pg’s parser: early and late years, BC, infinity, a date alone', () => {
    for (const text of [
      '0050-03-01 10:00:00+00',
      '0099-12-31 23:59:59.999+00',
      '10000-01-01 00:00:00+00',
      '2000-01-01 00:00:00+00 BC',
      '0001-01-01 00:00:00+00:01:15 BC',
      'infinity',
      '-infinity',
      '2026-11-30',
      '2026-11-30 20:05:00',
      '2026-11-30 20:05:00.+00',
      '2026-11-30 20:05:00+0',
      '2026-11-30 20:05:00+05:3',
      '2026-11-30 2x:05:00+00',
    ]) {
      assert.deepEqual(instant(parseTimestamptz(text)), instant(parseDateSlow(text)), text);
    }
    assert.equal(parseTimestamptz('infinity'), Number.POSITIVE_INFINITY);
    assert.equal(instant(parseTimestamptz('2026-11-30 20:05:00.1234567+00')), Date.UTC(2026, 10, 30, 20, 5, 0, 123));
  });

  it('keeps milliseconds and drops finer digits, as a Date does', () => {
    assert.equal(instant(parseTimestamptz('2026-11-30 20:05:00.1+00')), Date.UTC(2026, 10, 30, 20, 5, 0, 100));
    assert.equal(instant(parseTimestamptz('2026-11-30 20:05:00.999999+00')), Date.UTC(2026, 10, 30, 20, 5, 0, 999));
    assert.equal(instant(parseTimestamptz('2026-11-30 20:05:00.5-03:30')), Date.UTC(2026, 10, 30, 23, 35, 0, 500));
    assert.equal(instant(parseTimestamptz('1850-06-01 12:19:32+00:19:32')), Date.UTC(1850, 5, 1, 12, 0, 0));
  });

  describe('PostgreSQL’s own output', { skip: REAL_DATABASE_URL ? false : 'PostgreSQL only (DATABASE_URL)' }, () => {
    it('parses to the instant PostgreSQL means, in time zones of hours, half hours and local mean time', async () => {
      const client = new pg.Client({ connectionString: REAL_DATABASE_URL! });
      await client.connect();
      try {
        const values = [
          '2026-11-30 20:05:00.123456+00',
          '2026-11-30 20:05:00+00',
          '2026-03-29 01:30:00.5+00',
          '1999-12-31 23:59:59.999+00',
          '1850-06-01 12:00:00.25+00',
          '1900-01-01 00:00:00+00',
          '0050-01-01 00:00:00+00',
          '2000-01-01 00:00:00+00 BC',
          '9999-12-31 23:59:59.999999+00',
          'infinity',
          '-infinity',
        ];
        for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam', 'Pacific/Chatham', 'America/Los_Angeles']) {
          await client.query(`set timezone = '${zone}'`);
          const { rows } = await client.query<{ v: Date | number; text: string; ms: string | null }>(
            `select v, v::text as text,
                    case when isfinite(v) then floor(extract(epoch from v) * 1000)::text end as ms
               from unnest($1::timestamptz[]) as v`,
            [values],
          );
          assert.equal(rows.length, values.length);
          for (const row of rows) {
            assert.deepEqual(instant(row.v), instant(parseDateSlow(row.text)), `${zone}: ${row.text}`);
            if (row.ms !== null) assert.equal(instant(row.v), Number(row.ms), `${zone}: ${row.text}`);
          }
        }
      } finally {
        await client.end();
      }
    });
  });
});
