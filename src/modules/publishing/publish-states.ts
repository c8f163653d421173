/**
 * The publish target state machine, in one table, and the job status derived from its targets.
 * Every state change in the service goes through a conditional UPDATE whose WHERE lists the states
 * this table allows to reach the new one, so a concurrent writer can never skip a rule.
 */

export const TARGET_STATES = [
  'draft', // persisted, neither scheduled nor queued
  'pending_approval', // a member submitted it; an admin approves (then scheduled or queued) or rejects (back to draft)
  'scheduled', // waits for scheduledAt; a pg-boss job is due then
  'queued', // due now (or waiting for a retry / a concurrency slot at nextAttemptAt)
  'publishing', // a worker holds the lease and is calling the platform
  'processing', // the platform accepted the post and is still processing it; polled
  'published',
  'failed', // the platform refused the post, or retries were exhausted
  'cancelled',
  'needs_reconnect', // the channel's token is expired or revoked
  'needs_attention', // the outcome is unknown (lost response, crashed worker): never retried blindly
  'missed', // found due later than its job's maxLatenessMinutes: not published (it can be rescheduled)
] as const;
export type TargetState = (typeof TARGET_STATES)[number];

export type TargetEvent =
  | 'submit'
  | 'approve_scheduled'
  | 'approve_queued'
  | 'reject'
  | 'schedule'
  | 'enqueue'
  | 'cancel'
  | 'claim'
  | 'retry'
  | 'processing'
  | 'published'
  | 'failed'
  | 'needs_reconnect'
  | 'needs_attention'
  | 'missed';

/** event -> [states it may start from, the state it leads to] */
export const TRANSITIONS: Record<TargetEvent, { from: readonly TargetState[]; to: TargetState }> = {
  // approvals (a member's draft; publishing.drafts.manage submits, publishing.results.manage decides). Submitting
  // again a job that was approved and is still waiting (scheduled or queued) takes it back for approval.
  submit: {
    from: ['draft', 'scheduled', 'queued', 'failed', 'needs_reconnect', 'missed'],
    to: 'pending_approval',
  },
  approve_scheduled: { from: ['pending_approval'], to: 'scheduled' },
  approve_queued: { from: ['pending_approval'], to: 'queued' },
  reject: { from: ['pending_approval'], to: 'draft' },
  schedule: {
    from: ['draft', 'scheduled', 'queued', 'failed', 'needs_reconnect', 'needs_attention', 'missed'],
    to: 'scheduled',
  },
  enqueue: {
    from: ['draft', 'scheduled', 'failed', 'needs_reconnect', 'needs_attention', 'missed'],
    to: 'queued',
  },
  cancel: {
    from: ['draft', 'pending_approval', 'scheduled', 'queued', 'failed', 'needs_reconnect', 'needs_attention', 'missed'],
    to: 'cancelled',
  },
  claim: { from: ['scheduled', 'queued'], to: 'publishing' },
  retry: { from: ['publishing', 'processing'], to: 'queued' },
  processing: { from: ['publishing', 'processing'], to: 'processing' },
  published: { from: ['publishing', 'processing'], to: 'published' },
  failed: { from: ['publishing', 'processing'], to: 'failed' },
  needs_reconnect: {
    from: ['publishing', 'processing', 'scheduled', 'queued', 'draft'],
    to: 'needs_reconnect',
  },
  needs_attention: {
    from: ['publishing', 'processing', 'scheduled', 'queued'],
    to: 'needs_attention',
  },
  // the lateness policy: the claim found it due later than its job's maxLatenessMinutes, or the sweep did
  missed: { from: ['publishing', 'processing'], to: 'missed' },
};

// The state sets below are derived from the table, and every state list in SQL is one of them (or a
// TRANSITIONS entry), so a change of the table changes every statement with it.
/** states in which a target still waits for the worker (those it may be claimed from) */
export const PENDING_STATES: readonly TargetState[] = TRANSITIONS.claim.from;
/** a worker holds the target: it is calling the platform, or polling a post the platform is processing */
export const IN_FLIGHT_STATES: readonly TargetState[] = [TRANSITIONS.claim.to, TRANSITIONS.processing.to];
/** before anything was scheduled or queued: a draft (also after a rejection), or one waiting for approval */
export const DRAFT_STATES: readonly TargetState[] = [TRANSITIONS.reject.to, TRANSITIONS.submit.to];
/** not finished: a draft, waiting for approval or the worker, or in flight (still references its media) */
export const OPEN_STATES: readonly TargetState[] = [...DRAFT_STATES, ...PENDING_STATES, ...IN_FLIGHT_STATES];
/** the states a transition may start from, narrowed to the given ones (for statements that move a subset) */
export function fromStates(event: TargetEvent, among: readonly string[]): TargetState[] {
  return TRANSITIONS[event].from.filter((s) => among.includes(s));
}

export const JOB_STATUSES = [
  'draft',
  'pending_approval',
  'scheduled',
  'queued',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
  'needs_reconnect',
  'needs_attention',
  'missed',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * A job's status from its targets' states:
 * any target in flight -> publishing; else any waiting for approval -> pending_approval;
 * work left while some targets already finished -> publishing;
 * only waiting targets -> queued (if any is queued) or scheduled;
 * nothing left to do -> published (all non-cancelled published), partially_published (some),
 * else the most actionable problem: needs_attention, needs_reconnect, failed, missed; all cancelled -> cancelled.
 */
export function deriveJobStatus(states: readonly string[]): JobStatus {
  if (states.length === 0) return 'draft';
  const has = (s: TargetState) => states.includes(s);
  const count = (s: TargetState) => states.filter((x) => x === s).length;
  const waiting = count('scheduled') + count('queued');
  const done = states.length - waiting - count('draft') - count('pending_approval') - count('publishing') - count('processing');
  if (has('publishing') || has('processing')) return 'publishing';
  if (has('pending_approval')) return 'pending_approval';
  if (waiting > 0 && done > 0) return 'publishing';
  if (waiting > 0) return has('queued') ? 'queued' : 'scheduled';
  if (has('draft')) return 'draft';
  const published = count('published');
  const live = states.length - count('cancelled');
  if (live === 0) return 'cancelled';
  if (published === live) return 'published';
  if (published > 0) return 'partially_published';
  if (has('needs_attention')) return 'needs_attention';
  if (has('needs_reconnect')) return 'needs_reconnect';
  if (!has('failed') && has('missed')) return 'missed';
  return 'failed';
}
