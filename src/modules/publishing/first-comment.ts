/**
 * The firstComment plug: posted after the main post as its own tracked step (first_comment_state:
 * waiting -> pending -> posting -> posted | failed | needs_attention; cancelled when the post is not
 * published). Its failure never changes the target's state. Transient and rate-limited failures are
 * retried up to FIRST_COMMENT_MAX_ATTEMPTS; a lost answer is flagged, never posted twice.
 */
import { ProviderError } from '../../providers/provider.js';
import type { ChannelGateway } from './channel-gateway.js';
import { firstCommentRepository } from './first-comment.repository.js';
import { targetError } from './publish-call.js';
import { type CommentJobData, sendCommentJob } from './publish-queue.js';
import type { PublishingDeps } from './publishing.deps.js';

const FIRST_COMMENT_MAX_ATTEMPTS = 3;

export class FirstCommentStep {
  constructor(
    private readonly deps: PublishingDeps,
    private readonly channels: ChannelGateway,
    private readonly retryBaseMs: number,
  ) {}

  async handle(data: CommentJobData): Promise<string> {
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const row = await firstCommentRepository.claim(db, data.organizationId, data.targetId, now);
    if (!row?.provider_post_id) return 'stale';
    const fc = row.first_comment as { content: string } | null;
    const finish = async (state: string, set: { id?: string; error?: ReturnType<typeof targetError> | null }) => {
      await firstCommentRepository.leavePosting(db, row.organization_id, row.id, {
        state,
        commentId: set.id,
        error: set.error !== undefined ? JSON.stringify(set.error) : undefined,
        at: this.deps.clock.now(),
      });
      return state;
    };
    try {
      const { provider, ctx } = await this.channels.resolve(row.organization_id, row.channel_account_id);
      const { providerCommentId } = await provider.postComment(ctx, {
        providerPostId: row.provider_post_id,
        text: fc?.content ?? '',
      });
      return finish('posted', { id: providerCommentId, error: null });
    } catch (err) {
      const at = this.deps.clock.now();
      if (err instanceof ProviderError) {
        const e = targetError(err.providerCode ?? err.category, err.category, err.message, err.providerResponse, at);
        if (err.retryable && row.first_comment_attempts < FIRST_COMMENT_MAX_ATTEMPTS) {
          const delay = Math.max(this.retryBaseMs * 2 ** (row.first_comment_attempts - 1), (err.retryAfterSeconds ?? 0) * 1000);
          return db.transaction().execute(async (tx) => {
            await firstCommentRepository.leavePosting(tx, row.organization_id, row.id, { state: 'pending', error: JSON.stringify(e), at });
            await sendCommentJob(this.deps.jobs, tx, data, new Date(at.getTime() + delay));
            return 'retry';
          });
        }
        return finish(err.category === 'unknown_outcome' ? 'needs_attention' : 'failed', { error: e });
      }
      return finish('failed', {
        error: targetError('first_comment_error', 'transient', (err as Error).message, null, at),
      });
    }
  }
}
