/**
 * The lateness policy: a target found due more than its job's maxLatenessMinutes after the time it was
 * meant to publish (due_at: its schedule, or when it was queued; retries never move it) is not published
 * but moves to missed, with the delay in its reason. Checked when the worker claims a target and when
 * the reconciliation sweep would queue again a post a crash left unpublished.
 */
import { type Outcome, targetError } from './publish-call.js';

interface Timed {
  due_at: Date | null;
  scheduled_at: Date | null;
}

/** How late the target is at `now` (0 when it has no due time yet). */
function latenessMs(row: Timed, now: Date): number {
  const due = row.due_at ?? row.scheduled_at;
  return due ? Math.max(0, now.getTime() - new Date(due).getTime()) : 0;
}

const minutes = (ms: number) => (ms >= 120_000 ? `${Math.floor(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`);

/** The missed outcome when the target is past its limit (null: no limit, or still within it). */
export function missedOutcome(row: Timed, maxLatenessMinutes: number | null, now: Date): Extract<Outcome, { kind: 'final' }> | null {
  if (maxLatenessMinutes === null || maxLatenessMinutes === undefined) return null;
  const late = latenessMs(row, now);
  if (late <= maxLatenessMinutes * 60_000) return null;
  return {
    kind: 'final',
    state: 'missed',
    error: targetError(
      'max_lateness_exceeded',
      'lateness',
      `Found due ${minutes(late)} after its time, past the job's limit of ${maxLatenessMinutes} minutes (maxLatenessMinutes): not published. Reschedule or queue it to publish it now.`,
      null,
      now,
    ),
  };
}

/** A profile's `scheduleSettings.maxLatenessMinutes` when it is a valid limit (else none). */
export function profileLateness(settings: Record<string, unknown> | null | undefined): number | null {
  const v = settings?.maxLatenessMinutes;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 10080 ? v : null;
}
