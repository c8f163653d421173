/**
 * The one table of comment status / replyStatus transitions. replyStatus is what happened to our
 * answer; status is derived from it (what the community manager has to do).
 *
 *   event          from replyStatus                                 to replyStatus
 *   draft          none, drafted, failed                            drafted
 *   reply_posted   none, drafted, failed, needs_reconciliation,     replied
 *                  replied
 *   reply_failed   none, drafted, failed, needs_reconciliation      failed
 *   reply_lost     none, drafted, failed, replied                   needs_reconciliation
 *   own_reply_seen any                                              replied   (sync found the channel's answer)
 */
import type { CommentStatus, ReplyStatus } from './comments.schemas.js';

export type CommentEvent = 'draft' | 'reply_posted' | 'reply_failed' | 'reply_lost' | 'own_reply_seen';

const TABLE: Record<CommentEvent, { from: readonly ReplyStatus[]; to: ReplyStatus }> = {
  draft: { from: ['none', 'drafted', 'failed'], to: 'drafted' },
  reply_posted: { from: ['none', 'drafted', 'failed', 'needs_reconciliation', 'replied'], to: 'replied' },
  reply_failed: { from: ['none', 'drafted', 'failed', 'needs_reconciliation'], to: 'failed' },
  reply_lost: { from: ['none', 'drafted', 'failed', 'replied'], to: 'needs_reconciliation' },
  own_reply_seen: { from: ['none', 'drafted', 'failed', 'needs_reconciliation', 'replied'], to: 'replied' },
};

/** The status a replyStatus implies. */
function statusFor(replyStatus: ReplyStatus): CommentStatus {
  if (replyStatus === 'replied') return 'replied';
  if (replyStatus === 'drafted') return 'drafted';
  return 'needs_reply';
}

/** The next (status, replyStatus), or null when the event does not apply from this replyStatus. */
export function transition(current: ReplyStatus, event: CommentEvent): { status: CommentStatus; replyStatus: ReplyStatus } | null {
  const rule = TABLE[event];
  if (!rule.from.includes(current)) return null;
  return { status: statusFor(rule.to), replyStatus: rule.to };
}
