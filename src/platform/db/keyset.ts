/**
 * The keyset list query every paginated list runs: the rows after the cursor's key in the list's order,
 * ordered by the key column, limit + 1 of them so `page()` (http/pagination.ts) can tell whether a next
 * page exists. Lists ordered by a ULID id run oldest first (`asc`: ids greater than the key) or newest
 * first (`desc`: ids smaller than the key).
 */
import { type Expression, type SelectQueryBuilder, type StringReference, sql } from 'kysely';

export function keysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  column: StringReference<DB, TB>,
  afterKey: string | null | undefined,
  limit: number,
  order: 'asc' | 'desc' = 'asc',
): SelectQueryBuilder<DB, TB, O> {
  const from = afterKey ? query.where(column, order === 'asc' ? '>' : '<', afterKey as never) : query;
  return from.orderBy(column, order).limit(limit + 1);
}

/** The key of a row in a list ordered by time, then id (`timeKeysetPage`). */
export interface TimeKey {
  at: Date;
  id: string;
}

export function encodeTimeKey(at: Date | string, id: string): string {
  return `${new Date(at).toISOString()}|${id}`;
}

/** The key of a cursor, or null when it is not a time key (a forged or pre-change cursor). */
export function decodeTimeKey(key: string): TimeKey | null {
  const bar = key.indexOf('|');
  if (bar < 0) return null;
  const at = new Date(key.slice(0, bar));
  const id = key.slice(bar + 1);
  return Number.isNaN(at.getTime()) || id.length === 0 ? null : { at, id };
}

/**
 * A list ordered by a time, then id (both descending), for lists read by time window (the calendar's
 * jobs, analytics snapshots): with an index on (…, time) the page is read in index order, so its cost
 * follows the page, not the rows in the window (ordering such a window by id would sort all of it).
 * The cursor key is `<time ISO>|<id>`: milliseconds, as the service writes its times; a time written
 * with microseconds (by hand in SQL) could make a page skip rows of the same millisecond.
 */
export function timeKeysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  time: Expression<Date>,
  id: StringReference<DB, TB>,
  after: TimeKey | null,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  const idRef = sql.ref(id as string);
  // the plain bound lets an index on (…, time) start at the key; the row comparison breaks ties by id
  const from = after
    ? query.where(time, '<=', after.at as never).where(sql<boolean>`(${time}, ${idRef}) < (${after.at}, ${after.id})`)
    : query;
  return from
    .orderBy(time, 'desc')
    .orderBy(idRef, 'desc')
    .limit(limit + 1);
}
