/**
 * The keyset list query every paginated list runs: the rows after the cursor's key in the list's order,
 * ordered by the key column, limit + 1 of them so `page()` (http/pagination.ts) can tell whether a next
 * page exists. Lists ordered by a ULID id run oldest first (`asc`: ids greater than the key) or newest
 * first (`desc`: ids smaller than the key).
 */
import type { SelectQueryBuilder, StringReference } from 'kysely';

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
