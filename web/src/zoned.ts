/**
 * Dates in a brand's time zone (IANA name) with the browser's Intl only: the calendar's days are the
 * brand's days, whatever zone the browser is in.
 */
export interface DayRef {
  y: number;
  m: number; // 1-12
  d: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock parts of an instant in a zone. */
export function zonedParts(at: Date, zone: string) {
  const parts: Record<string, number> = {};
  for (const p of formatter(zone).formatToParts(at)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year!, m: parts.month!, d: parts.day!, h: parts.hour! % 24, min: parts.minute!, s: parts.second! };
}

/** The instant of a wall-clock time in a zone (the earlier one in a repeated hour). */
export function zonedInstant(day: DayRef, h: number, min: number, zone: string): Date {
  const wall = Date.UTC(day.y, day.m - 1, day.d, h, min);
  let guess = wall;
  // two rounds settle the zone offset, also across a change of offset
  for (let i = 0; i < 2; i++) {
    const p = zonedParts(new Date(guess), zone);
    const seen = Date.UTC(p.y, p.m - 1, p.d, p.h, p.min);
    guess += wall - seen;
  }
  return new Date(guess);
}

export const dayOf = (at: Date, zone: string): DayRef => {
  const p = zonedParts(at, zone);
  return { y: p.y, m: p.m, d: p.d };
};

/** `YYYY-MM-DD` */
export const dayKey = (day: DayRef) => `${day.y}-${String(day.m).padStart(2, '0')}-${String(day.d).padStart(2, '0')}`;

export function addDays(day: DayRef, n: number): DayRef {
  const t = new Date(Date.UTC(day.y, day.m - 1, day.d + n));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/** Monday of the week of a day. */
export function mondayOf(day: DayRef): DayRef {
  const weekday = new Date(Date.UTC(day.y, day.m - 1, day.d)).getUTCDay();
  return addDays(day, -((weekday + 6) % 7));
}

/** A day for display (the date itself, no zone shift). */
export function dayLabel(day: DayRef, options: Intl.DateTimeFormatOptions): string {
  return new Date(Date.UTC(day.y, day.m - 1, day.d, 12)).toLocaleDateString(undefined, { ...options, timeZone: 'UTC' });
}

export function timeLabel(at: Date, zone: string): string {
  return at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', timeZone: zone });
}
