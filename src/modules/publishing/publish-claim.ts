/**
 * The claim: a scheduled/queued target of the job's version moves to publishing (version bump, one
 * more attempt, a lease) and its job to publishing, in one statement batched with the claims of the
 * same moment (publish-engine.repository.ts). The answer carries the job's media and lateness limit; the
 * channel's call context is the channels area's (one read through its port before the platform call).
 */
import { retryOnConflict } from '../../platform/db/retry.js';
import type { Db } from '../database.js';
import { MicroBatcher } from './micro-batcher.js';
import { type ClaimedRow, publishEngineRepository } from './publish-engine.repository.js';
import { TRANSITIONS } from './publish-states.js';

export type { ClaimedRow } from './publish-engine.repository.js';

export interface ClaimInput {
  targetId: string;
  version: number;
  organizationId: string;
  leaseUntil: Date;
  now: Date;
}

export class PublishClaims {
  private readonly claims: MicroBatcher<ClaimInput, ClaimedRow | null>;

  constructor(private readonly db: () => Db) {
    // one statement, conditional on version and state: running it again after a deadlock with a
    // client's change of the same job (platform/db/retry.ts) claims only what is still claimable
    this.claims = new MicroBatcher(
      (inputs) => retryOnConflict(() => this.claimMany(inputs)),
      (input) => retryOnConflict(() => this.claimMany([input])).then((rows) => rows[0] ?? null),
    );
  }

  /** Moves a scheduled/queued target of this version to publishing; null when it is no longer that. */
  claim(input: ClaimInput): Promise<ClaimedRow | null> {
    return this.claims.submit(input);
  }

  private async claimMany(inputs: ClaimInput[]): Promise<Array<ClaimedRow | null>> {
    // one time for the batch: the earliest caller's clock, the latest lease
    const now = inputs[0]!.now;
    const lease = new Date(Math.max(...inputs.map((i) => i.leaseUntil.getTime())));
    const rows = await publishEngineRepository.claim(this.db(), inputs, TRANSITIONS.claim.from, TRANSITIONS.claim.to, lease, now);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // two worker jobs of the same target and version in one batch update the row once: the first
    // caller has the claim, the other is stale (never two platform calls for one claim)
    return inputs.map((x) => {
      const row = byId.get(x.targetId) ?? null;
      byId.delete(x.targetId);
      return row;
    });
  }
}
