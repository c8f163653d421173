/**
 * Prefixed, sortable ids: `<prefix>_<ULID>`. ULIDs sort by creation time, so keyset pagination on id
 * follows creation order. The monotonic factory keeps ids from one process strictly increasing even
 * within the same millisecond.
 */
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export function newId(prefix: string): string {
  return `${prefix}_${next()}`;
}
