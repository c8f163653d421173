/**
 * One attempt on one target, by responsibility: the slot (publish-slots.ts: rate limiter and deferral),
 * the claim (publish-claim.ts: conditional move to publishing, version bump), the lateness policy
 * (publish-lateness.ts: a target claimed past its limit is missed, never published), the platform call and its
 * error mapping and backoff (publish-call.ts), the outcome (publish-outcomes.ts, the one writer), and
 * polling of `processing` answers (publish-poll.ts) until published or failed.
 */
import type { ChannelGateway } from './channel-gateway.js';
import type { MediaAccess } from './media-access.js';
import { type Outcome, PublishCall } from './publish-call.js';
import { type ClaimedRow, PublishClaims } from './publish-claim.js';
import { missedOutcome } from './publish-lateness.js';
import { OutcomeRecorder, outcomeHoldLimitMs } from './publish-outcomes.js';
import type { PublishLimiter } from './publish-policies.js';
import { PublishPoll } from './publish-poll.js';
import { ensurePublishQueues, type TargetJobData } from './publish-queue.js';
import { PublishSlots } from './publish-slots.js';
import { IN_FLIGHT_STATES, PENDING_STATES, TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { publishingRepository } from './publishing.repository.js';

/** most published outcomes held in memory at once */
const HOLD_MAX_OUTCOMES = 20_000;

export interface EngineSettings {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  leaseMs: number;
  pollMaxMs: number;
  /** platform calls one worker process makes at once (SERVICE_PUBLISH_WORKER_CONCURRENCY) */
  callsAtOnce?: number;
}

export class PublishEngine {
  readonly outcomes: OutcomeRecorder;
  private readonly claims: PublishClaims;
  private readonly call: PublishCall;
  private readonly slots: PublishSlots;
  private readonly polls: PublishPoll;

  constructor(
    private readonly deps: PublishingDeps,
    channels: ChannelGateway,
    media: MediaAccess,
    limiter: PublishLimiter,
    readonly settings: EngineSettings,
  ) {
    const now = () => deps.clock.now();
    this.claims = new PublishClaims(() => deps.database.db);
    this.call = new PublishCall(channels, media, settings, now);
    this.slots = new PublishSlots(deps, limiter, settings.callsAtOnce);
    // Write-behind under a burst: while publishes wait for a call permit, the platform's answer of each
    // call made is noted on its target (a small batched write no index sees) and the full outcome (state,
    // job status, events: about 26 write-ahead log records a target) is held in memory and written once the
    // burst's calls have all started (256 a statement), instead of taking the CPU the waiting calls need
    // (docs/operations.md, "Published outcomes noted during a burst"). The target stays in publishing
    // under its lease meanwhile; a worker that stops before the full write leaves the note, from which the
    // reconciliation sweep writes the outcome. The hold is bounded (outcomeHoldLimitMs: 30 s, a quarter of
    // the lease) so a sustained overload still writes.
    this.outcomes = new OutcomeRecorder(deps, channels, settings.pollMaxMs, {
      busy: () => this.slots.callsWaiting,
      maxHoldMs: outcomeHoldLimitMs(settings.leaseMs),
      maxHeld: HOLD_MAX_OUTCOMES,
    });
    this.slots.onCallsDrained(() => this.outcomes.releaseHeld());
    this.polls = new PublishPoll(channels, this.call, this.outcomes, now);
  }

  /** Handles one worker job; answers what happened (for logs and tests). */
  async handle(data: TargetJobData): Promise<string> {
    await ensurePublishQueues(this.deps.jobs);
    if (data.step === 'publish' && data.platform && data.channelAccountId) {
      // the hot path: the claim first (batched with the claims of the same moment, no read before it)
      // and the call's preparation, ahead of a call permit; then the permit and the policy slot for
      // the platform call only; the outcome write after the slot is released
      return this.publishClaimedFirst(data.targetId, data.version, data.organizationId);
    }
    const row = await publishingRepository.getTarget(this.deps.database.db, data.targetId);
    if (!row || row.organization_id !== data.organizationId || row.version !== data.version) return 'stale';
    const wanted = data.step === 'publish' ? PENDING_STATES : IN_FLIGHT_STATES.filter((s) => s === TRANSITIONS.processing.to);
    if (!wanted.includes(row.state as never)) return 'stale';
    const req = {
      targetId: row.id,
      organizationId: row.organization_id,
      version: row.version,
      platform: row.platform,
      channelAccountId: row.channel_account_id,
      states: [row.state],
      step: data.step,
    };
    return this.slots.withSlot(req, () =>
      data.step === 'publish' ? this.publish(row.id, row.version, row.organization_id) : this.polls.poll(row),
    );
  }

  private async publishClaimedFirst(targetId: string, version: number, organizationId: string): Promise<string> {
    const end = this.slots.start();
    let result: string | { claimed: ClaimedRow; outcome: Outcome };
    try {
      result = await this.claimAndCall(targetId, version, organizationId);
    } finally {
      end();
    }
    // the outcome is written once the call ended (held during a burst: the write-behind above)
    return typeof result === 'string' ? result : this.outcomes.record(result.claimed, result.outcome);
  }

  /**
   * Claims ahead of the call permit: the claim and the call's preparation (channel context, media) of
   * the next targets overlap the platform calls in flight, so a call permit is held for the policy slot
   * and the platform call only. Before, each permit waited for its claim and its channel read (two
   * round trips) before every call; at a burst that idle time, not the calls, set the lateness.
   */
  private async claimAndCall(
    targetId: string,
    version: number,
    organizationId: string,
  ): Promise<string | { claimed: ClaimedRow; outcome: Outcome }> {
    await this.slots.takeAhead();
    let aheadHeld = true;
    const giveAhead = () => {
      if (aheadHeld) this.slots.giveAhead();
      aheadHeld = false;
    };
    let claimed: ClaimedRow | null;
    let prepared: Awaited<ReturnType<PublishCall['prepare']>>;
    try {
      const now = this.deps.clock.now();
      claimed = await this.claimTarget(targetId, version, organizationId, now);
      if (!claimed) return 'stale';
      // past its lateness limit (the worker was down, the account was reconnecting): missed, not published
      const missed = missedOutcome(claimed, claimed.job_max_lateness, this.deps.clock.now());
      if (missed) return { claimed, outcome: missed };
      prepared = await this.call.prepare(claimed, this.deps.database.db);
      // the channel cannot publish or the media is gone: nothing reaches the platform
      if (prepared.kind === 'outcome') return { claimed, outcome: prepared.outcome };
      await this.slots.takePermit();
    } finally {
      giveAhead();
    }
    let slot: Awaited<ReturnType<PublishSlots['forCall']>>;
    try {
      slot = await this.slots.forCall({ platform: claimed.platform, channelAccountId: claimed.channel_account_id });
    } catch (err) {
      // the counter store failed before the platform was called: the claim goes back (not an attempt)
      await this.slots.unclaim(claimed, 1000);
      throw err;
    }
    if (!slot.ok) {
      await this.slots.unclaim(claimed, slot.retryInMs);
      return 'deferred';
    }
    // the lease must still cover the call: past half of it (a long wait for a permit or slot), the
    // reconciliation sweep could soon take the target for a crashed attempt, so the claim goes back
    const leaseLeft = new Date(claimed.lease_until ?? 0).getTime() - this.deps.clock.now().getTime();
    if (leaseLeft < this.settings.leaseMs / 2) {
      await slot.release().catch(() => undefined);
      await this.slots.unclaim(claimed, 0);
      return 'deferred';
    }
    try {
      return { claimed, outcome: await this.call.call(claimed, prepared) };
    } finally {
      await slot.release().catch(() => undefined);
    }
  }

  /** Claims the target for one lease from now (null: its version moved on or it is taken). */
  private claimTarget(targetId: string, version: number, organizationId: string, now: Date): Promise<ClaimedRow | null> {
    return this.claims.claim({ targetId, version, organizationId, leaseUntil: new Date(now.getTime() + this.settings.leaseMs), now });
  }

  private async publish(targetId: string, version: number, organizationId: string): Promise<string> {
    const now = this.deps.clock.now();
    // claim the target and mark its job publishing in one statement (batched with the claims of the
    // same turn); answers the job's media and the channel too
    const claimed = await this.claimTarget(targetId, version, organizationId, now);
    if (!claimed) return 'stale';
    const missed = missedOutcome(claimed, claimed.job_max_lateness, now);
    if (missed) return this.outcomes.record(claimed, missed);
    return this.outcomes.record(claimed, await this.call.publish(claimed, this.deps.database.db));
  }
}
