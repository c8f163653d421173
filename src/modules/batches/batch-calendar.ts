/**
 * The batch scheduler's calendar: the platforms' daily caps, seeded jitter, slot occurrences over a
 * horizon (time zone arithmetic in platform/time/zoned-time.ts), and the checks on a
 * sorted list of post times (gap, 24-hour cap). Pure functions, no I/O and no clock.
 */
import { isoWeekday, localParts, zonedInstant } from '../../platform/time/zoned-time.js';

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

export interface SchedulerSlot {
  id: string;
  localTime: string;
  timezone: string;
  weekdays?: number[];
  platform?: string;
  channelAccountId?: string;
  jitterSecondsMin: number;
  jitterSecondsMax: number;
  minGapMinutes: number;
  productCooldownMinutes: number;
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
    const start = localParts(from, slot.timezone);
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
