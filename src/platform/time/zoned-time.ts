/**
 * Wall-clock time in an IANA time zone <-> instants, with Intl only (DST-correct). Shared by the
 * publishing slots and the batch scheduler, so both place a slot at the same instant.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** An IANA time zone name Intl knows (brands, profile slots and automation schedules take one). */
export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(tz, f);
  }
  return f;
}

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** ISO weekday, 1 = Monday ... 7 = Sunday */
  weekday: number;
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** What the wall clock in `tz` shows at an instant (a Date or epoch milliseconds). */
export function localParts(instant: Date | number, tz: string): LocalParts {
  const p: Record<string, string> = {};
  for (const x of formatter(tz).formatToParts(instant)) if (x.type !== 'literal') p[x.type] = x.value;
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
    weekday: WEEKDAYS[p.weekday as string] ?? 1,
  };
}

/** Offset of the zone from UTC at an instant, in ms. */
function offsetAt(instant: number, tz: string): number {
  const p = localParts(instant, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(instant / 1000) * 1000;
}

const HALF_DAY = 43_200_000;

/**
 * The instant (epoch ms) the wall clock in tz shows y-m-d hh:mm. A time skipped by a spring-forward
 * change maps to the same wall time after the change (02:30 -> 03:30); a repeated autumn time takes
 * its first instant.
 */
export function zonedInstant(y: number, m: number, d: number, hh: number, mm: number, tz: string): number {
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  // the zone's offsets half a day either side cover any change on that day
  const before = offsetAt(guess - HALF_DAY, tz);
  const after = offsetAt(guess + HALF_DAY, tz);
  const candidates = [guess - before, guess - after].filter((t) => {
    const w = localParts(t, tz);
    return w.hour === hh && w.minute === mm && w.day === d;
  });
  if (candidates.length > 0) return Math.min(...candidates);
  return guess - Math.min(before, after);
}

/** ISO weekday (1 = Monday) of a calendar date. */
export function isoWeekday(y: number, m: number, d: number): number {
  const w = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return w === 0 ? 7 : w;
}

export function isTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}
