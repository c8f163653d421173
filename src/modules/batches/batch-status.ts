/**
 * A batch's status, derived from its targets every time it is read (never stored, so it cannot drift
 * from the publish targets the worker moves):
 * no targets -> empty; none scheduled (or all cancelled) -> unscheduled; any in flight, or some finished while others
 * wait -> processing; all waiting -> scheduled (partially_scheduled when some are unscheduled);
 * all finished -> published (every target published), partially_published (some), needs_attention
 * (none published, some need attention or a reconnect), else failed.
 */
import type { BatchStatus } from './batches.schemas.js';

const WAITING = new Set(['draft', 'scheduled', 'queued']);
const IN_FLIGHT = new Set(['publishing', 'processing']);

/** states: the publish target state of every batch target, null when it is unscheduled. */
export function deriveBatchStatus(states: ReadonlyArray<string | null>): BatchStatus {
  if (states.length === 0) return 'empty';
  // a cancelled target (by the client or a channel disconnect) counts like one never scheduled
  const made = states.filter((s): s is string => s !== null && s !== 'cancelled');
  if (made.length === 0) return 'unscheduled';
  const unscheduled = states.length - made.length;
  const waiting = made.filter((s) => WAITING.has(s)).length;
  const inFlight = made.filter((s) => IN_FLIGHT.has(s)).length;
  const done = made.length - waiting - inFlight;
  if (inFlight > 0 || (waiting > 0 && done > 0)) return 'processing';
  if (waiting > 0) return unscheduled > 0 ? 'partially_scheduled' : 'scheduled';
  const published = made.filter((s) => s === 'published').length;
  if (published === states.length) return 'published';
  if (published > 0) return 'partially_published';
  if (made.some((s) => s === 'needs_attention' || s === 'needs_reconnect')) return 'needs_attention';
  return 'failed';
}

export function targetCounts(states: ReadonlyArray<string | null>) {
  return {
    publishedTargetCount: states.filter((s) => s === 'published').length,
    failedTargetCount: states.filter((s) => s === 'failed').length,
    queuedTargetCount: states.filter((s) => s === 'scheduled' || s === 'queued').length,
  };
}
