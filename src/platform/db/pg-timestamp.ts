/**
 * timestamptz values from PostgreSQL (text protocol) as Dates, without the regular expressions of pg's own
 * parser (postgres-date: three expressions and their match arrays a value, about 1 µs). A list of 20 brands
 * has 40 timestamps, a claim of deliveries or targets one to three a row: the parse was about a tenth of the
 * CPU of `GET /v1/brands` and the largest allocation of its request (docs/operations.md).
 *
 * The fast path reads PostgreSQL's ISO output (DateStyle ISO, any TimeZone) at fixed positions:
 * `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`. Anything else (a year before 100 or after 9999, BC dates,
 * `infinity`, another DateStyle) goes to pg's parser, so every value parses as it did; the tests compare the
 * two over generated values and over PostgreSQL's own output in several time zones.
 */
import pg from 'pg';

/** timestamptz's type id */
export const TIMESTAMPTZ_OID = 1184;

/** pg's own parser of timestamptz (postgres-date), taken before `parseTimestamptz` replaces it */
export const parseDateSlow = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number | null;

/** the value of `count` decimal digits at `at`, or -1 if one of them is not a digit */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** The instant of a timestamptz text; Infinity/-Infinity for `infinity`, as pg's parser gives. */
export function parseTimestamptz(text: string): Date | number | null {
  const n = text.length;
  if (n < 22 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32) return parseDateSlow(text);
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return parseDateSlow(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  // Date.UTC reads years 0-99 as 1900-1999: those go the slow way (pg's parser corrects them)
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return parseDateSlow(text);
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    // up to six fraction digits; a Date keeps milliseconds, the rest is cut off as Date.UTC cuts it
    at++;
    let scale = 100;
    while (at < n) {
      const d = text.charCodeAt(at) - 48;
      if (d < 0 || d > 9) break;
      ms += d * scale;
      scale = scale === 1 ? 0 : scale / 10;
      at++;
    }
    if (at === 20) return parseDateSlow(text);
  }
  const sign = text.charCodeAt(at);
  if ((sign !== 43 && sign !== 45) || n - at < 3) return parseDateSlow(text);
  const hours = digits(text, at + 1, 2);
  if (hours < 0) return parseDateSlow(text);
  let offset = hours * 3600;
  at += 3;
  // minutes, then seconds, of the offset when they are not zero (historical local mean times have seconds)
  for (let part = 60; at < n && part >= 1; part /= 60) {
    if (text.charCodeAt(at) !== 58 || n - at < 3) return parseDateSlow(text);
    const value = digits(text, at + 1, 2);
    if (value < 0) return parseDateSlow(text);
    offset += value * part;
    at += 3;
  }
  if (at !== n) return parseDateSlow(text);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  return new Date(sign === 45 ? utc + offset * 1000 : utc - offset * 1000);
}
