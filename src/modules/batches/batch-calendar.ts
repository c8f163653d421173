/**
 * The batch scheduler's calendar: the platforms' daily caps, seeded jitter, time zone arithmetic
 * (DST-correct instants from wall-clock times), slot occurrences over a horizon, and the checks on a
 * sorted list of post times (gap, 24-hour cap). Pure functions, no I/O and no clock.
 */
import type { SchedulerSlot } from './batch-scheduler.js';

/** Documented publishing caps per 24-hour moving window, per account. */
export const PLATFORM_DAILY_CAPS: Record<string, number> = {
  // Instagram Content Publishing API: 100 API-published posts per 24-hour moving period (carousels count once)
  instagram_business: 100,
  instagram_standalone: 100,
  // Threads API: 250 API-published posts per 24-hour moving period
  threads: 250,
};

export const MIN = 60_000;
export const DAY = 86_400_000;
export const DUPLICATE_WINDOW_MS = 72 * 3_600_000;

// ---- deterministic hashing (FNV-1a + murmur3 finaliser): fast, stable across processes
export function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
export function mix(a: number, b: number): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The seeded jitter in whole seconds inside [min, max]. */
export function jitterFor(targetHash: number, occurrenceHash: number, min: number, max: number): number {
  const span = max - min + 1;
  return min + (mix(targetHash, occurrenceHash) % span);
}

// ---- time zones (Intl only)
const formatters = new Map<string, Intl.DateTimeFormat>();
function fmt(tz: string): Intl.DateTimeFormat {
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
    });
    formatters.set(tz, f);
  }
  return f;
}
function wall(instant: number, tz: string) {
  const p: Record<string, number> = {};
  for (const x of fmt(tz).formatToParts(new Date(instant))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return p as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}
function offsetAt(instant: number, tz: string): number {
  const p = wall(instant, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(instant / 1000) * 1000;
}
/**
 * The instant the wall clock in tz shows y-m-d hh:mm. A time skipped by a spring-forward change maps
 * to the same wall time after the change (02:30 -> 03:30); a repeated autumn time takes its first instant.
 */
export function zonedInstant(y: number, m: number, d: number, hh: number, mm: number, tz: string): number {
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  // the zone's offsets half a day either side cover any change on that day
  const before = offsetAt(guess - DAY / 2, tz);
  const after = offsetAt(guess + DAY / 2, tz);
  const candidates = [guess - before, guess - after].filter((t) => {
    const w = wall(t, tz);
    return w.hour === hh && w.minute === mm && w.day === d;
  });
  if (candidates.length > 0) return Math.min(...candidates);
  return guess - Math.min(before, after);
}
export function isoWeekday(y: number, m: number, d: number): number {
  const w = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return w === 0 ? 7 : w;
}
export function isTimeZone(tz: string): boolean {
  try {
    fmt(tz);
    return true;
  } catch {
    return false;
  }
}

export interface Occurrence {
  slot: SchedulerSlot;
  slotIndex: number;
  base: number;
  hash: number;
}

/** Every occurrence of the slots from `from` (day of `from` in each slot's zone) over horizonDays. */
export function slotOccurrences(slots: SchedulerSlot[], from: number, horizonDays: number): Occurrence[] {
  const out: Occurrence[] = [];
  slots.forEach((slot, slotIndex) => {
    const start = wall(from, slot.timezone);
    const [hh, mm] = slot.localTime.split(':').map(Number) as [number, number];
    for (let i = 0; i <= horizonDays; i++) {
      const day = new Date(Date.UTC(start.year, start.month - 1, start.day + i));
      const y = day.getUTCFullYear();
      const m = day.getUTCMonth() + 1;
      const d = day.getUTCDate();
      if (slot.weekdays && slot.weekdays.length > 0 && !slot.weekdays.includes(isoWeekday(y, m, d))) continue;
      out.push({ slot, slotIndex, base: zonedInstant(y, m, d, hh, mm, slot.timezone), hash: fnv(`${slot.id}|${y}-${m}-${d}`) });
    }
  });
  out.sort((a, b) => a.base - b.base || a.slotIndex - b.slotIndex);
  return out;
}

// ---- sorted time lists
export function lowerBound(a: number[], t: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
export function insertSorted(a: number[], t: number) {
  a.splice(lowerBound(a, t), 0, t);
}
/** Is any time of the sorted list strictly closer than `gap` to t? */
export function within(a: number[] | undefined, t: number, gap: number): boolean {
  if (!a || a.length === 0 || gap <= 0) return false;
  const i = lowerBound(a, t);
  return (i < a.length && a[i]! - t < gap) || (i > 0 && t - a[i - 1]! < gap);
}
/** Would adding t make some 24-hour window hold more than cap posts? */
export function overCap(a: number[], t: number, cap: number): boolean {
  const lo = lowerBound(a, t - DAY + 1);
  const hi = lowerBound(a, t + DAY);
  if (hi - lo < cap) return false;
  // exact: every window [s, s + DAY) containing t, s from t - DAY + 1 to t
  const pts = a.slice(lo, hi);
  let j = 0;
  for (let i = 0; i < pts.length && pts[i]! <= t; i++) {
    const s = Math.max(pts[i]!, t - DAY + 1);
    while (j < pts.length && pts[j]! < s + DAY) j++;
    if (j - i + 1 > cap) return true;
  }
  // the window that starts at t itself
  return hi - lowerBound(a, t) + 1 > cap;
}
