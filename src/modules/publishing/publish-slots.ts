/**
 * The rate limiter's place in an attempt: the channel's and platform's slot (PublishLimiter, by the
 * platform's rate-limit policy) is taken before the target is read or claimed and released after the
 * outcome is written. No slot free: the same version is sent again a little later (not an attempt).
 */
import type { AppDeps } from '../../app-deps.js';
import type { Platform } from '../../providers/provider.js';
import { PLATFORM_RULES } from './platform-rules.js';
import type { PublishLimiter } from './publish-policies.js';
import { sendTargetJob, type TargetJobData } from './publish-queue.js';

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

export class PublishSlots {
  constructor(
    private readonly deps: AppDeps,
    private readonly limiter: PublishLimiter,
  ) {}

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
      const row = await tx
        .updateTable('publish_targets')
        .set({ next_attempt_at: at })
        .where('id', '=', targetId)
        .where('version', '=', version)
        .where('state', 'in', [...req.states])
        .returning(['platform', 'channel_account_id'])
        .executeTakeFirst();
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
