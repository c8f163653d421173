/**
 * The rate limiter's place in an attempt: the channel's and platform's slot (PublishLimiter, by the
 * platform's rate-limit policy).
 * - Polls and jobs without hints (`withSlot`): the slot is taken before the target is read and released
 *   after the outcome is written; no slot free: the same version is sent again a little later.
 * - The publish hot path (`forCall`): a place among the claims made ahead (AHEAD_PER_PERMIT per call
 *   permit) is taken, the target claimed (batched with the other claims of the moment) and its call
 *   prepared (channel context, media), then one of the worker's call permits
 *   (SERVICE_PUBLISH_WORKER_CONCURRENCY) and the policy slot, held for the platform call only (the
 *   outcome is written after it is released). A slot refused for the per-minute rate, or
 *   not free within MAX_SLOT_WAIT_MS, gives the claim back (`unclaim`: queued again under a new
 *   version, the attempt not counted), as the deferral does before a claim.
 */
import type { Platform } from '../../providers/provider.js';
import { PLATFORM_RULES } from './platform-rules.js';
import { publishEngineRepository } from './publish-engine.repository.js';
import type { PublishLimiter } from './publish-policies.js';
import { sendTargetJob, type TargetJobData } from './publish-queue.js';
import { fromStates, TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { publishingRepository } from './publishing.repository.js';

export interface SlotRequest {
  targetId: string;
  organizationId: string;
  version: number;
  platform: string;
  channelAccountId: string;
  /** the states the target must still be in for the deferral to apply */
  states: readonly string[];
  step: TargetJobData['step'];
}

/** longest a claimed target waits in the worker for a policy slot held elsewhere */
const MAX_SLOT_WAIT_MS = 15_000;
/** a refused waiter tries again at least this often (slots freed by other worker processes wake nobody here) */
const SLOT_RECHECK_MS = 200;

export type CallSlot = { ok: true; release: () => Promise<void> } | { ok: false; retryInMs: number };

/** First come, first served permits; a released permit goes straight to the next waiter. */
class Permits {
  private readonly waiters: Array<() => void> = [];
  constructor(private free: number) {}
  get waiting(): number {
    return this.waiters.length;
  }
  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((r) => this.waiters.push(r));
  }
  give(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

/** targets one worker process claims and prepares ahead of its call permits, per permit */
const AHEAD_PER_PERMIT = 2;

export class PublishSlots {
  private readonly permits: Permits;
  /** claims ahead of a call permit: claimed and prepared while other calls run */
  private readonly ahead: Permits;
  /** targets refused a concurrency slot, woken one at a time as this process releases slots */
  private readonly refused: Array<() => void> = [];
  /** publishes of the hot path between their start and the end of their platform call */
  private active = 0;
  private drained: () => void = () => {};

  constructor(
    private readonly deps: PublishingDeps,
    private readonly limiter: PublishLimiter,
    private readonly callsAtOnce = Number.MAX_SAFE_INTEGER,
  ) {
    this.permits = new Permits(callsAtOnce);
    this.ahead = new Permits(Math.min(Number.MAX_SAFE_INTEGER, callsAtOnce * AHEAD_PER_PERMIT));
  }

  /** Whether more publishes are under way than calls can run at once: a burst in this process. */
  get callsWaiting(): boolean {
    return this.active > this.callsAtOnce;
  }

  /** Called once no publish waits for a call any more (the burst's calls have all started or ended). */
  onCallsDrained(listener: () => void): void {
    this.drained = listener;
  }

  /** A publish starts; the answer ends it (once its platform call ended, or it will make none). */
  start(): () => void {
    this.active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.active--;
      if (this.active === this.callsAtOnce) this.drained();
    };
  }

  /** A place among the claims made ahead of the call permits (bounded: a claimed target soon gets its call). */
  takeAhead(): Promise<void> {
    return this.ahead.take();
  }

  giveAhead(): void {
    this.ahead.give();
  }

  /** One of the worker's call permits, taken once the target is claimed and its call prepared. */
  takePermit(): Promise<void> {
    return this.permits.take();
  }

  givePermit(): void {
    this.permits.give();
  }

  /**
   * The policy slot for a claimed target's platform call, the caller holding a permit. While a
   * concurrency limit is reached it waits in this process (the permit given back meanwhile, so other
   * channels go on) up to MAX_SLOT_WAIT_MS; refused at once for the rate. Ok: the permit is held until
   * release; refused or thrown: the permit is given back.
   */
  async forCall(req: { platform: string; channelAccountId: string }): Promise<CallSlot> {
    const policy = PLATFORM_RULES[req.platform as Platform]?.capability.rateLimitPolicy ?? 'standard';
    const deadline = Date.now() + MAX_SLOT_WAIT_MS;
    for (;;) {
      const slot = await this.limiter.acquire(req.platform, req.channelAccountId, policy, true).catch((err) => {
        this.permits.give();
        throw err;
      });
      if (slot.ok)
        return {
          ok: true,
          release: async () => {
            try {
              await slot.release();
            } finally {
              this.permits.give();
              this.refused.shift()?.();
            }
          },
        };
      this.permits.give();
      if (slot.limit === 'rate' || Date.now() >= deadline) return { ok: false, retryInMs: slot.retryInMs };
      // woken by the next slot this process releases, or by the timer (other processes' releases; a
      // release that woke a target of another channel); never by another refusal, which would spin
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(slot.retryInMs, SLOT_RECHECK_MS, Math.max(0, deadline - Date.now())));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.refused.push(done);
      });
      await this.permits.take();
    }
  }

  /**
   * Gives a claim back that found no slot: publishing -> queued under a new version, the attempt not
   * counted, and a worker job for that version later (the deferral of a claimed target).
   */
  async unclaim(
    claimed: { id: string; organization_id: string; job_id: string; version: number; platform: string; channel_account_id: string },
    delayMs: number,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const at = new Date(now.getTime() + delayMs + Math.floor(Math.random() * 250));
    await this.deps.database.db.transaction().execute(async (tx) => {
      // the job row lock serializes status refreshes of the job's targets
      await publishEngineRepository.lockJob(tx, claimed.organization_id, claimed.job_id);
      const row = await publishEngineRepository.unclaim(
        tx,
        claimed,
        fromStates('retry', [TRANSITIONS.claim.to]),
        TRANSITIONS.retry.to,
        at,
        now,
      );
      if (!row) return;
      await publishingRepository.refreshJobStatus(tx, claimed.job_id, now);
      await sendTargetJob(
        this.deps.jobs,
        tx,
        {
          targetId: claimed.id,
          organizationId: claimed.organization_id,
          version: row.version,
          step: 'publish',
          platform: claimed.platform,
          channelAccountId: claimed.channel_account_id,
        },
        at,
      );
    });
  }

  /** Runs `work` holding a slot, or defers the job and answers 'deferred'. */
  async withSlot(req: SlotRequest, work: () => Promise<string>): Promise<string> {
    const policy = PLATFORM_RULES[req.platform as Platform]?.capability.rateLimitPolicy ?? 'standard';
    const slot = await this.limiter.acquire(req.platform, req.channelAccountId, policy, req.step === 'publish');
    if (!slot.ok) {
      await this.defer(req, slot.retryInMs);
      return 'deferred';
    }
    try {
      return await work();
    } finally {
      await slot.release().catch(() => undefined);
    }
  }

  private async defer(req: SlotRequest, delayMs: number) {
    const { targetId, organizationId, version, step } = req;
    const at = new Date(this.deps.clock.now().getTime() + delayMs + Math.floor(Math.random() * 250));
    await this.deps.database.db.transaction().execute(async (tx) => {
      const row = await publishEngineRepository.defer(tx, { id: targetId, organization_id: organizationId, version }, req.states, at);
      if (row)
        await sendTargetJob(
          this.deps.jobs,
          tx,
          { targetId, organizationId, version, step, platform: row.platform, channelAccountId: row.channel_account_id },
          at,
        );
    });
  }
}
