/** The time the service reads: the system's in production, a fixed or stepped one in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A prune step's body for a retention of `days` days: `prune` removes what is older than the cutoff,
 * `days` days before the time the step runs at.
 */
export function pruneOlderThan<D>(
  days: number,
  prune: (db: D, cutoff: Date, limit: number) => Promise<number>,
): (db: D, now: Date, limit: number) => Promise<number> {
  return (db, now, limit) => prune(db, new Date(now.getTime() - days * 86_400_000), limit);
}
