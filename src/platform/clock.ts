/** The time the service reads: the system's in production, a fixed or stepped one in tests. */
export interface Clock {
  now(): Date;
  /** the same time as epoch milliseconds, where a clock can give it without making a Date (the system's) */
  nowMs?(): number;
}

export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now };

/** The clock's time in epoch milliseconds: no Date made on the system clock (paths every request takes). */
export function epochMs(clock: Clock): number {
  return clock.nowMs ? clock.nowMs() : clock.now().getTime();
}

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
