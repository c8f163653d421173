/** UTC windows for the limits: whole minutes for the rate limit, whole days (reset 00:00 UTC) for quotas. */

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export interface Window {
  /** Identifies the window in counter keys. */
  id: string;
  /** The window's end as ISO 8601 and as Unix epoch seconds (the bodies' `resetAt`, the `*-Reset` headers). */
  resetIso: string;
  resetEpochSeconds: string;
  /** Milliseconds until the window ends, for counter expiry. */
  remainingMs: number;
}

interface Formatted {
  start: number;
  id: string;
  resetIso: string;
  resetEpochSeconds: string;
}

/** The window starting at `start`, formatted once per window, not on every call. */
function formatted(memo: Formatted, start: number, length: number, idLength: number): Formatted {
  if (memo.start !== start) {
    memo.start = start;
    memo.id = new Date(start).toISOString().slice(0, idLength);
    memo.resetIso = new Date(start + length).toISOString();
    memo.resetEpochSeconds = String(Math.floor((start + length) / 1000));
  }
  return memo;
}
const blank = (): Formatted => ({ start: Number.NaN, id: '', resetIso: '', resetEpochSeconds: '' });
const minutes = blank();
const days = blank();

function windowOf(memo: Formatted, nowMs: number, length: number, idLength: number): Window {
  const start = Math.floor(nowMs / length) * length;
  const f = formatted(memo, start, length, idLength);
  return {
    id: f.id,
    resetIso: f.resetIso,
    resetEpochSeconds: f.resetEpochSeconds,
    remainingMs: start + length - nowMs,
  };
}

export function minuteWindow(nowMs: number): Window {
  return windowOf(minutes, nowMs, MINUTE_MS, 16);
}

export function dayWindow(nowMs: number): Window {
  return windowOf(days, nowMs, DAY_MS, 10);
}

/** Whole seconds a client should wait, at least one. */
export function retryAfterSeconds(window: Window): number {
  return Math.max(1, Math.ceil(window.remainingMs / 1000));
}
