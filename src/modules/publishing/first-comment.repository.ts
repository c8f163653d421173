/**
 * The first comment's state on its publish target (first_comment_state: waiting -> pending -> posting ->
 * posted | failed | needs_attention; cancelled). Every change is conditional on the state it leaves, so a
 * duplicate job or a late answer changes nothing; every statement is confined to one organization.
 */
import type { Executor } from '../database.js';
import { TRANSITIONS } from './publish-states.js';
import type { TargetRow } from './publishing.repository.js';

export const firstCommentRepository = {
  /** A published target's pending comment taken for posting (its attempt counted); null when it is not pending. */
  async claim(db: Executor, organizationId: string, targetId: string, at: Date): Promise<TargetRow | null> {
    const row = await db
      .updateTable('publish_targets')
      .set((eb) => ({
        first_comment_state: 'posting',
        first_comment_attempts: eb('first_comment_attempts', '+', 1),
        updated_at: at,
      }))
      .where('id', '=', targetId)
      .where('organization_id', '=', organizationId)
      .where('state', '=', TRANSITIONS.published.to)
      .where('first_comment_state', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    return row ?? null;
  },

  /**
   * The end of a posting attempt: `state` (pending again for a retry), with the comment's id and the
   * error (JSON) when given.
   */
  async leavePosting(
    db: Executor,
    organizationId: string,
    targetId: string,
    set: { state: string; commentId?: string; error?: string; at: Date },
  ): Promise<void> {
    await db
      .updateTable('publish_targets')
      .set({
        first_comment_state: set.state,
        ...(set.commentId ? { first_comment_id: set.commentId } : {}),
        ...(set.error !== undefined ? { first_comment_error: set.error } : {}),
        updated_at: set.at,
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', targetId)
      .where('first_comment_state', '=', 'posting')
      .execute();
  },

  /** The job's cancelled targets' comments still waiting for their post: cancelled too. */
  async cancelWaiting(tx: Executor, organizationId: string, jobId: string): Promise<void> {
    await tx
      .updateTable('publish_targets')
      .set({ first_comment_state: 'cancelled' })
      .where('organization_id', '=', organizationId)
      .where('job_id', '=', jobId)
      .where('state', '=', TRANSITIONS.cancel.to)
      .where('first_comment_state', '=', 'waiting')
      .execute();
  },
};
