/**
 * Opaque keyset cursors. A cursor is base64url JSON {k: last key, f: filter fingerprint}; a cursor
 * used with other filters is refused instead of silently returning a wrong page.
 */
import { createHash } from 'node:crypto';
import { decodeTimeKey, type TimeKey } from '../platform/db/keyset.js';
import { AppError, type ErrorCode } from '../platform/errors.js';

function encodeCursor(lastKey: string, filters: Record<string, unknown> = {}): string {
  return Buffer.from(JSON.stringify({ k: lastKey, f: fingerprint(filters) })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, filters: Record<string, unknown>, code: ErrorCode): string | null {
  if (!cursor) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown; f?: unknown };
    if (typeof parsed.k !== 'string' || parsed.f !== fingerprint(filters)) throw new Error('mismatch');
    return parsed.k;
  } catch {
    throw invalidCursor(code);
  }
}

/** The (time, id) key of a list ordered by time (platform/db/keyset.ts `timeKeysetPage`). */
export function decodeTimeCursor(cursor: string | undefined, filters: Record<string, unknown>, code: ErrorCode): TimeKey | null {
  const key = decodeCursor(cursor, filters, code);
  if (key === null) return null;
  const parsed = decodeTimeKey(key);
  if (!parsed) throw invalidCursor(code);
  return parsed;
}

function invalidCursor(code: ErrorCode) {
  return new AppError(code, {
    message: 'The cursor is not valid for this query; start again without a cursor.',
    fields: [{ path: ['cursor'], source: 'query' }],
  });
}

function fingerprint(filters: Record<string, unknown>): string {
  const stable = Object.keys(filters)
    .sort()
    .filter((k) => filters[k] !== undefined && k !== 'cursor' && k !== 'limit')
    .map((k) => [k, filters[k]]);
  return createHash('sha256').update(JSON.stringify(stable)).digest('base64url').slice(0, 12);
}

/** Splits a page fetched with limit + 1 rows into data and nextCursor. */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => string, filters: Record<string, unknown>) {
  const data = rows.slice(0, limit);
  const nextCursor = rows.length > limit && data.length > 0 ? encodeCursor(keyOf(data[data.length - 1]!), filters) : null;
  return { data, nextCursor };
}
