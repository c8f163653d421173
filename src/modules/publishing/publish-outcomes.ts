/**
 * The one writer of a publish attempt's outcome. The engine, polling and the reconciliation sweep hand
 * their Outcome to `record`; nothing else sets a target to published, processing, queued (retry),
 * failed, needs_reconnect or needs_attention after a claim. The columns each outcome sets are defined
 * once (`outcomeColumns`); the write is conditional on the claimed version and on the states the
 * transition table allows, so a racing writer loses instead of overwriting. Three statements carry it:
 * - published from publishing without a first comment waiting: batched with the same turn's (hot path);
 *   during a burst the platform's answer is first noted on the target (a small batched write), and the
 *   full outcome is held and written once the burst's calls have started (the engine's write-behind);
 * - published or final with no follow-up: one statement that sets the job's status too when it is the
 *   job's only target;
 * - everything else (a follow-up job to send, or the channel to mark): a transaction under the job lock.
 */
import { retryOnConflict } from '../../platform/db/retry.js';
import type { Executor } from '../database.js';
import type { ChannelGateway } from './channel-gateway.js';
import { type HoldPolicy, MicroBatcher } from './micro-batcher.js';
import type { Outcome } from './publish-call.js';
import { CANCEL_FIRST_COMMENT, type OutcomeColumns, publishEngineRepository } from './publish-engine.repository.js';
import { recordJobCompletion, recordTargetOutcome } from './publish-events.js';
import { recordTargetOutcomes } from './publish-outcome-events.js';
import { sendCommentJob, sendTargetJob } from './publish-queue.js';
import { deriveJobStatus, fromStates, type TargetEvent, TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { publishingRepository, type TargetRow } from './publishing.repository.js';

interface PublishedInput {
  targetId: string;
  organizationId: string;
  version: number;
  providerPostId: string;
  url: string | null;
  /** when the platform answered (the target's published_at) */
  at: Date;
}

/** jobUpdated: the target is its job's only one and the statement set the job's status too. */
type PublishedAnswer = { recorded: false } | { recorded: true; jobId: string; jobUpdated: boolean };

type Columns = OutcomeColumns;

/** longest a published outcome is held during a burst before it is written in full */
const HOLD_MAX_MS = 30_000;
/** how long a burst's first note waits for others to go in the same statement */
const NOTE_LINGER_MS = 50;

/**
 * How long a published outcome may be held during a burst (noted on its target meanwhile): at most
 * HOLD_MAX_MS, and a quarter of the lease, so the held write always lands well inside the lease the
 * reconciliation sweep allows an attempt.
 */
export function outcomeHoldLimitMs(leaseMs: number): number {
  return Math.min(HOLD_MAX_MS, leaseMs / 4);
}

const EVENT_OF: Record<Outcome['kind'], (o: Outcome) => TargetEvent> = {
  published: () => 'published',
  processing: () => 'processing',
  retry: () => 'retry',
  final: (o) => (o as Extract<Outcome, { kind: 'final' }>).state,
};

/**
 * The columns an outcome sets on its target (the batched statement reads the post id and URL from its
 * input rows). Retry and processing columns depend on the row.
 */
function outcomeColumns(o: Outcome, row: TargetRow | null, now: Date, pollMaxMs = 0): Columns {
  const to = TRANSITIONS[EVENT_OF[o.kind](o)].to;
  switch (o.kind) {
    case 'published':
      return {
        state: to,
        provider_post_id: o.providerPostId,
        provider_url: o.url,
        published_at: o.at ?? now,
        posted_post_id: null,
        posted_url: null,
        posted_at: null,
        lease_until: null,
        next_attempt_at: null,
        poll_token: null,
        state_reason: null,
        // a first comment waiting for the post becomes due
        ...(row?.first_comment && row.first_comment_state === 'waiting' ? { first_comment_state: 'pending' } : {}),
        updated_at: now,
      };
    case 'processing':
      return {
        state: to,
        poll_token: o.pollToken,
        provider_post_id: o.providerPostId ?? row?.provider_post_id ?? null,
        next_attempt_at: new Date(now.getTime() + Math.max(50, o.pollAfterMs)),
        // while processing, the lease is the polling window
        lease_until: row?.state === 'processing' ? row.lease_until : new Date(now.getTime() + pollMaxMs),
        updated_at: now,
      };
    case 'retry':
      return {
        state: to,
        last_error: o.error,
        next_attempt_at: new Date(now.getTime() + o.delayMs),
        lease_until: null,
        state_reason: `retry ${(row?.attempts ?? 0) + 1} after ${o.error.category}`,
        updated_at: now,
      };
    case 'final':
      return {
        state: to,
        last_error: o.error,
        lease_until: null,
        next_attempt_at: null,
        state_reason: o.error.message.slice(0, 500),
        first_comment_state: CANCEL_FIRST_COMMENT,
        updated_at: now,
      };
  }
}

export class OutcomeRecorder {
  private readonly published: MicroBatcher<PublishedInput, PublishedAnswer>;
  private readonly notes: MicroBatcher<PublishedInput, boolean>;

  constructor(
    private readonly deps: PublishingDeps,
    private readonly channels: ChannelGateway,
    private readonly pollMaxMs: number,
    /** write-behind of published outcomes during a burst (see PublishEngine) */
    private readonly hold?: HoldPolicy,
  ) {
    // the notes of a burst are never held: a held outcome is durable from its note on. They gather for
    // NOTE_LINGER_MS, so that a burst's notes take a few statements a second, not one every few calls
    this.notes = new MicroBatcher(
      (inputs) => retryOnConflict(() => this.noteMany(inputs)),
      (input) => retryOnConflict(() => this.noteMany([input])).then((noted) => noted[0]!),
      { lingerMs: NOTE_LINGER_MS },
    );
    // a deadlock with a client's change of the same job (which locks the job first) aborts the
    // transaction; it runs again (platform/db/retry.ts), so a post made is never left unrecorded
    this.published = new MicroBatcher(
      (inputs) => retryOnConflict(() => this.publishedMany(inputs)),
      (input) => retryOnConflict(() => this.publishedMany([input])).then((rows) => rows[0]!),
      { hold },
    );
  }

  /** Writes the published outcomes held during a burst now. */
  releaseHeld(): void {
    this.published.release();
  }

  private get db() {
    return this.deps.database.db;
  }

  /**
   * Writes an outcome if the target is still the version this attempt claimed (or polled); answers the
   * state written or 'lost_race'. A scheduled target's publication is measured against its due time.
   */
  async record(row: TargetRow, o: Outcome): Promise<string> {
    // measured when the platform answered, not when the outcome's write (held during a burst) ended
    const at = o.kind === 'published' && o.at ? o.at : this.deps.clock.now();
    const state = await this.write(row, o);
    if (state === 'published' && row.scheduled_at)
      this.deps.metrics.publishLateness(row.platform, (at.getTime() - new Date(row.scheduled_at).getTime()) / 1000);
    return state;
  }

  private async write(row: TargetRow, o: Outcome): Promise<string> {
    const now = this.deps.clock.now();
    const from = fromStates(EVENT_OF[o.kind](o), [row.state]);
    if (from.length === 0) return 'lost_race';
    const fcWaiting = !!row.first_comment && row.first_comment_state === 'waiting';
    if (o.kind === 'published' && !fcWaiting && row.state === TRANSITIONS.claim.to) {
      const input: PublishedInput = {
        targetId: row.id,
        organizationId: row.organization_id,
        version: row.version,
        providerPostId: o.providerPostId,
        url: o.url,
        at: o.at ?? now,
      };
      // the full write is about to be held (calls are waiting for the CPU): the answer is noted first, so
      // a worker that stops before the held write leaves the outcome for the reconciliation sweep
      if (this.hold?.busy() && !row.posted_at && !(await this.notes.submit(input))) return 'lost_race';
      const answer = await this.published.submit(input);
      if (!answer.recorded) return 'lost_race';
      if (!answer.jobUpdated) await this.refreshJobLocked(row.organization_id, row.job_id, now);
      return 'published';
    }
    if ((o.kind === 'published' && !fcWaiting) || (o.kind === 'final' && !o.channelState)) return this.writeAlone(row, o, from, now);
    return this.writeWithFollowUp(row, o, from, now);
  }

  /** the notes gathered over the linger in one statement; false for a target no longer publishing this version */
  private async noteMany(inputs: PublishedInput[]): Promise<boolean[]> {
    const noted = await publishEngineRepository.notePublished(this.db, inputs, fromStates('published', [TRANSITIONS.claim.to]));
    return inputs.map((x) => noted.has(x.targetId));
  }

  /** published outcomes of one event-loop turn in one statement, their events in the same transaction */
  private async publishedMany(inputs: PublishedInput[]): Promise<PublishedAnswer[]> {
    // the write's own time (a held batch is written seconds after its outcomes; each keeps its answer's time)
    const now = this.deps.clock.now();
    const cols = outcomeColumns({ kind: 'published', providerPostId: '', url: null }, null, now);
    const from = fromStates('published', [TRANSITIONS.claim.to]);
    const jobStatus = deriveJobStatus([TRANSITIONS.published.to]);
    const rows = await this.db.transaction().execute(async (tx) => {
      // the updated rows come back whole: the outcome events are built from them without reading again
      const updated = await publishEngineRepository.markPublished(tx, inputs, cols, from, jobStatus, now);
      // in job order; the events of the whole batch take a fixed number of statements
      const rows = [...updated].sort((a, b) => (a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : a.id < b.id ? -1 : 1));
      await recordTargetOutcomes(
        this.deps.events,
        tx,
        rows.map(({ job_updated, ...target }) => ({ target, jobUpdated: !!job_updated })),
      );
      return updated;
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return inputs.map((x): PublishedAnswer => {
      const r = byId.get(x.targetId);
      return r ? { recorded: true, jobId: r.job_id, jobUpdated: !!r.job_updated } : { recorded: false };
    });
  }

  /**
   * An outcome that needs no follow-up job: one statement updates the target and, when it is the job's
   * only target, the job's status. A job with several targets refreshes its status under the job row lock.
   */
  private async writeAlone(row: TargetRow, o: Extract<Outcome, { kind: 'published' | 'final' }>, from: string[], now: Date) {
    const state = o.kind === 'published' ? TRANSITIONS.published.to : o.state;
    const cols = outcomeColumns(o, row, now);
    const done = await retryOnConflict(() =>
      this.db.transaction().execute(async (tx) => {
        const done = await publishEngineRepository.writeOutcome(tx, row, cols, from, deriveJobStatus([state]), now);
        if (done) await recordTargetOutcome(this.deps.events, tx, row.organization_id, row.id, Number(done.job_updated) > 0);
        return done;
      }),
    );
    if (!done) return 'lost_race';
    if (Number(done.job_updated) === 0) await this.refreshJobLocked(row.organization_id, row.job_id, now);
    return state;
  }

  /** An outcome with a follow-up (first comment, poll or retry job, channel token state), under the job lock. */
  private async writeWithFollowUp(row: TargetRow, o: Outcome, from: string[], now: Date): Promise<string> {
    const cols = outcomeColumns(o, row, now, this.pollMaxMs);
    return retryOnConflict(() =>
      this.db.transaction().execute(async (tx) => {
        // the job row lock serializes status refreshes of the job's targets
        await publishEngineRepository.lockJob(tx, row.organization_id, row.job_id);
        const updated = await publishEngineRepository.setOutcome(tx, row, cols, from);
        if (!updated) return 'lost_race';
        await this.followUp(tx, row, updated, o, cols, now);
        await publishingRepository.refreshJobStatus(tx, row.job_id, now);
        await recordTargetOutcome(this.deps.events, tx, row.organization_id, row.id);
        return updated.state;
      }),
    );
  }

  private async followUp(tx: Executor, row: TargetRow, updated: TargetRow, o: Outcome, cols: Columns, now: Date) {
    const job = { targetId: row.id, organizationId: row.organization_id, version: updated.version };
    const next = cols.next_attempt_at as Date | null;
    if (o.kind === 'published') {
      const fc = row.first_comment as { delayMs: number } | null;
      if (fc && row.first_comment_state === 'waiting')
        await sendCommentJob(
          this.deps.jobs,
          tx,
          { targetId: row.id, organizationId: row.organization_id },
          new Date(now.getTime() + fc.delayMs),
        );
    } else if (o.kind === 'processing') {
      await sendTargetJob(this.deps.jobs, tx, { ...job, step: 'poll' }, next);
    } else if (o.kind === 'retry') {
      await sendTargetJob(
        this.deps.jobs,
        tx,
        { ...job, step: 'publish', platform: row.platform, channelAccountId: row.channel_account_id },
        next,
      );
    } else if (o.channelState) {
      await this.channels.markTokenProblem(
        tx,
        row.organization_id,
        row.channel_account_id,
        o.channelState,
        `platform refused the token while publishing target ${row.id}`,
        now,
      );
    }
  }

  /** A job with several targets: its status is refreshed under the job row lock. */
  private async refreshJobLocked(organizationId: string, jobId: string, now: Date): Promise<void> {
    await retryOnConflict(() =>
      this.db.transaction().execute(async (tx) => {
        const locked = await publishEngineRepository.lockJob(tx, organizationId, jobId);
        await publishingRepository.refreshJobStatus(tx, jobId, now);
        if (locked) await recordJobCompletion(this.deps.events, tx, locked.organization_id, jobId);
      }),
    );
  }
}
