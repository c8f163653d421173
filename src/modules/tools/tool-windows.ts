/** UTC windows for the limits: whole minutes for the rate limit, whole days (reset 00:00 UTC) for quotas. */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface Window {
  /** Identifies the window in counter keys. */
  id: string;
  resetAt: Date;
  /** Milliseconds until the window ends, for counter expiry. */
  remainingMs: number;
}

/** The id of the window starting at `start` (formatted once per window, not on every call). */
function idOf(memo: { start: number; id: string }, start: number, length: number): string {
  if (memo.start !== start) {
    memo.start = start;
    memo.id = new Date(start).toISOString().slice(0, length);
  }
  return memo.id;
}
const minuteIds = { start: Number.NaN, id: '' };
const dayIds = { start: Number.NaN, id: '' };

export function minuteWindow(nowMs: number): Window {
  const start = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  return {
    id: idOf(minuteIds, start, 16),
    resetAt: new Date(start + MINUTE_MS),
    remainingMs: start + MINUTE_MS - nowMs,
  };
}

export function dayWindow(nowMs: number): Window {
  const start = Math.floor(nowMs / DAY_MS) * DAY_MS;
  return {
    id: idOf(dayIds, start, 10),
    resetAt: new Date(start + DAY_MS),
    remainingMs: start + DAY_MS - nowMs,
  };
}

/** Whole seconds a client should wait, at least one. */
export function retryAfterSeconds(window: Window): number {
  return Math.max(1, Math.ceil(window.remainingMs / 1000));
}
