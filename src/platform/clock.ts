/** The time the service reads: the system's in production, a fixed or stepped one in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
