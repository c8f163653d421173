/**
 * The reconciliation sweep (cron every minute and POST /v1/internal/publish-queue/reconcile). Nothing
 * due is silently lost, even after a worker crash:
 * - a target in publishing past its lease: the platform may or may not have the post, so it is flagged
 *   needs_attention (never retried blindly);
 * - a scheduled/queued target due for longer than the grace period with no pending worker job of its
 *   version (none waiting, none active within the lease): re-queued under a new version, so a late
 *   original job is skipped;
 * - a processing target whose poll job is gone: polled again (polling only reads);
 * - a first comment stuck posting past the lease: needs_attention; pending with no job: re-queued.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import { ensurePublishQueues, FIRST_COMMENT_QUEUE, PUBLISH_QUEUE, sendCommentJob, sendTargetJob } from './publish-queue.js';
import { PENDING_STATES, TRANSITIONS } from './publish-states.js';
import { publishingRepository } from './publishing.repository.js';

const BATCH = 500;

export interface ReconcileResult {
  requeuedCount: number;
  flaggedCount: number;
  pollsRequeuedCount: number;
  commentsFlaggedCount: number;
  commentsRequeuedCount: number;
}

export class ReconcileService {
  constructor(
    private readonly deps: AppDeps,
    private readonly settings: { leaseMs: number; graceMs: number },
  ) {}

  async run(): Promise<ReconcileResult> {
    await ensurePublishQueues(this.deps.jobs);
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const result: ReconcileResult = {
      requeuedCount: 0,
      flaggedCount: 0,
      pollsRequeuedCount: 0,
      commentsFlaggedCount: 0,
      commentsRequeuedCount: 0,
    };

    // 1. stuck in publishing: outcome unknown
    const error = JSON.stringify({
      code: 'lease_expired',
      category: 'unknown_outcome',
      message: 'The worker stopped while publishing; the platform may or may not have the post.',
      providerResponse: null,
      at: now.toISOString(),
    });
    await db.transaction().execute(async (tx) => {
      const flagged = await tx
        .updateTable('publish_targets')
        .set((eb) => ({
          state: TRANSITIONS.needs_attention.to,
          version: eb('version', '+', 1),
          last_error: error,
          lease_until: null,
          state_reason: 'worker lease expired while publishing',
          updated_at: now,
        }))
        .where('state', '=', TRANSITIONS.claim.to)
        .where('lease_until', '<', now)
        .returning(['id', 'job_id'])
        .execute();
      result.flaggedCount = flagged.length;
      for (const jobId of new Set(flagged.map((f) => f.job_id))) await publishingRepository.refreshJobStatus(tx, jobId, now);
    });

    // 2. due with no live worker job of the current version
    const dueBefore = new Date(now.getTime() - this.settings.graceMs);
    const activeSince = new Date(now.getTime() - this.settings.leaseMs);
    const orphans = await db
      .selectFrom('publish_targets as t')
      .select(['t.id', 't.organization_id', 't.state', 't.version', 't.platform', 't.channel_account_id'])
      .where('t.state', 'in', [...PENDING_STATES, TRANSITIONS.processing.to])
      .where('t.next_attempt_at', '<=', dueBefore)
      .where(({ not, exists }) =>
        not(
          exists(
            sql`(select 1 from pgboss.job j where j.name = ${PUBLISH_QUEUE} and j.data->>'targetId' = t.id and (j.data->>'version')::int = t.version
              and (j.state in ('created','retry') or (j.state = 'active' and j.started_on > ${activeSince})))`,
          ),
        ),
      )
      .limit(BATCH)
      .execute();
    for (const o of orphans) {
      await db.transaction().execute(async (tx) => {
        if (o.state === TRANSITIONS.processing.to) {
          await sendTargetJob(
            this.deps.jobs,
            tx,
            {
              targetId: o.id,
              organizationId: o.organization_id,
              version: o.version,
              step: 'poll',
            },
            null,
          );
          result.pollsRequeuedCount += 1;
          return;
        }
        const bumped = await tx
          .updateTable('publish_targets')
          .set((eb) => ({
            version: eb('version', '+', 1),
            next_attempt_at: now,
            updated_at: now,
          }))
          .where('id', '=', o.id)
          .where('version', '=', o.version)
          .where('state', '=', o.state)
          .returning('version')
          .executeTakeFirst();
        if (!bumped) return;
        await sendTargetJob(
          this.deps.jobs,
          tx,
          {
            targetId: o.id,
            organizationId: o.organization_id,
            version: bumped.version,
            step: 'publish',
            platform: o.platform,
            channelAccountId: o.channel_account_id,
          },
          null,
        );
        result.requeuedCount += 1;
      });
    }

    // 3. first comments
    const leaseCutoff = new Date(now.getTime() - this.settings.leaseMs);
    const stuck = await db
      .updateTable('publish_targets')
      .set({
        first_comment_state: 'needs_attention',
        first_comment_error: JSON.stringify({
          code: 'lease_expired',
          category: 'unknown_outcome',
          message: 'The worker stopped while posting the first comment.',
          providerResponse: null,
          at: now.toISOString(),
        }),
      })
      .where('first_comment_state', '=', 'posting')
      .where('updated_at', '<', leaseCutoff)
      .executeTakeFirst();
    result.commentsFlaggedCount = Number(stuck.numUpdatedRows);
    const pending = await db
      .selectFrom('publish_targets as t')
      .select(['t.id', 't.organization_id'])
      .where('t.first_comment_state', '=', 'pending')
      .where('t.updated_at', '<', dueBefore)
      .where(sql<boolean>`(t.published_at + ((t.first_comment->>'delayMs')::bigint * interval '1 millisecond')) < ${dueBefore}`)
      .where(({ not, exists }) =>
        not(
          exists(
            sql`(select 1 from pgboss.job j where j.name = ${FIRST_COMMENT_QUEUE} and j.data->>'targetId' = t.id and j.state in ('created','retry','active'))`,
          ),
        ),
      )
      .limit(BATCH)
      .execute();
    for (const p of pending) {
      await db
        .transaction()
        .execute(async (tx) => sendCommentJob(this.deps.jobs, tx, { targetId: p.id, organizationId: p.organization_id }, null));
      result.commentsRequeuedCount += 1;
    }
    return result;
  }
}
