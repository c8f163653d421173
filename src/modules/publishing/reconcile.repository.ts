/**
 * The reconciliation sweep's statements over publish targets. The sweep runs across organizations (the
 * worker's cron) or over one (`organizationId`, an admin's call); every row it answers names its
 * organization, and every write is confined to the row's organization. Whether a target still has a
 * live worker job is asked of the queue (`QueueInspector`) inside the same statement.
 */
import { sql } from 'kysely';
import type { QueueInspector } from '../../platform/queue/queue-inspector.js';
import type { Executor } from '../database.js';
import { FIRST_COMMENT_QUEUE, PUBLISH_QUEUE } from './publish-queue.js';
import { PENDING_STATES, TRANSITIONS } from './publish-states.js';
import type { TargetRow } from './publishing.repository.js';

/** one organization's targets, or every organization's when undefined */
type Scope = string | undefined;

export const reconcileRepository = {
  /**
   * Posts other targets of the channel hold (updated since `since`), with when we recorded them published:
   * a lookup must not take them for this one, and those recorded before the attempt bound its walk.
   */
  async heldPosts(db: Executor, organizationId: string, q: { channelAccountId: string; exceptTargetId: string; since: Date }) {
    const rows = await db
      .selectFrom('publish_targets')
      .select(['provider_post_id', 'published_at'])
      .where('organization_id', '=', organizationId)
      .where('channel_account_id', '=', q.channelAccountId)
      .where('provider_post_id', 'is not', null)
      .where('id', '<>', q.exceptTargetId)
      .where('updated_at', '>=', q.since)
      .execute();
    return rows.map((r) => ({ postId: r.provider_post_id!, publishedAt: r.published_at }));
  },

  /** Targets in publishing whose lease ended before `now`, the longest overdue first. */
  async pastLease(db: Executor, organizationId: Scope, now: Date, limit: number): Promise<TargetRow[]> {
    return db
      .selectFrom('publish_targets')
      .selectAll()
      .where('state', '=', TRANSITIONS.claim.to)
      .where('lease_until', '<', now)
      .$if(organizationId !== undefined, (q) => q.where('organization_id', '=', organizationId!))
      .orderBy('lease_until')
      .limit(limit)
      .execute();
  },

  /**
   * Targets still in publishing whose worker noted the platform's answer before `notedBefore` and has not
   * written the outcome since (it stopped while holding it during a burst), oldest note first.
   */
  async notedBefore(db: Executor, organizationId: Scope, notedBefore: Date, limit: number): Promise<TargetRow[]> {
    return db
      .selectFrom('publish_targets')
      .selectAll()
      .where('state', '=', TRANSITIONS.claim.to)
      .where('posted_at', '<', notedBefore)
      .$if(organizationId !== undefined, (q) => q.where('organization_id', '=', organizationId!))
      .orderBy('posted_at')
      .limit(limit)
      .execute();
  },

  /**
   * Pending or processing targets due before `dueBefore` with no worker job of their version waiting, or
   * running since `activeSince`.
   */
  async withoutLiveJob(
    db: Executor,
    queue: QueueInspector,
    organizationId: Scope,
    q: { dueBefore: Date; activeSince: Date; limit: number },
  ) {
    return db
      .selectFrom('publish_targets as t')
      .select(['t.id', 't.organization_id', 't.state', 't.version', 't.platform', 't.channel_account_id'])
      .where('t.state', 'in', [...PENDING_STATES, TRANSITIONS.processing.to])
      .where('t.next_attempt_at', '<=', q.dueBefore)
      .$if(organizationId !== undefined, (qb) => qb.where('t.organization_id', '=', organizationId!))
      .where(({ not }) =>
        not(
          queue.liveJobExists(
            PUBLISH_QUEUE,
            [
              { key: 'targetId', equals: sql.ref('t.id') },
              { key: 'version', equals: sql.ref('t.version'), asInteger: true },
            ],
            { activeSince: q.activeSince },
          ),
        ),
      )
      .limit(q.limit)
      .execute();
  },

  /** A new version of a target still at (`version`, `state`), due now; its version, or null when it moved on. */
  async bumpVersion(tx: Executor, organizationId: string, t: { id: string; version: number; state: string }, now: Date) {
    const row = await tx
      .updateTable('publish_targets')
      .set((eb) => ({
        version: eb('version', '+', 1),
        next_attempt_at: now,
        updated_at: now,
      }))
      .where('organization_id', '=', organizationId)
      .where('id', '=', t.id)
      .where('version', '=', t.version)
      .where('state', '=', t.state)
      .returning('version')
      .executeTakeFirst();
    return row?.version ?? null;
  },

  /** First comments posting since before `before`: needs_attention with `error`; how many. */
  async flagStuckComments(db: Executor, organizationId: Scope, before: Date, error: string): Promise<number> {
    const r = await db
      .updateTable('publish_targets')
      .set({ first_comment_state: 'needs_attention', first_comment_error: error })
      .where('first_comment_state', '=', 'posting')
      .where('updated_at', '<', before)
      .$if(organizationId !== undefined, (q) => q.where('organization_id', '=', organizationId!))
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },

  /** Pending first comments due before `dueBefore` with no worker job waiting or running. */
  async pendingCommentsWithoutJob(db: Executor, queue: QueueInspector, organizationId: Scope, dueBefore: Date, limit: number) {
    return db
      .selectFrom('publish_targets as t')
      .select(['t.id', 't.organization_id'])
      .where('t.first_comment_state', '=', 'pending')
      .where('t.updated_at', '<', dueBefore)
      .$if(organizationId !== undefined, (q) => q.where('t.organization_id', '=', organizationId!))
      .where(sql<boolean>`(t.published_at + ((t.first_comment->>'delayMs')::bigint * interval '1 millisecond')) < ${dueBefore}`)
      .where(({ not }) => not(queue.liveJobExists(FIRST_COMMENT_QUEUE, [{ key: 'targetId', equals: sql.ref('t.id') }])))
      .limit(limit)
      .execute();
  },
};
