/**
 * Replies and moderation on synced comments. A reply is a row in social_comment_replies before the
 * platform is called; its answer decides the comment's replyStatus through the transition table. A
 * reply whose answer was lost (timeout, dropped connection) is needs_reconciliation and is settled by
 * reading the thread, never by posting again blindly; an Idempotency-Key finds the first attempt.
 */

import { codePointCount } from '../../platform/code-points.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { type ProviderCallContext, ProviderError, type SocialProvider } from '../../providers/provider.js';
import type { AppDeps } from '../app-deps.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { Db } from '../database.js';
import { transition } from './comment-states.js';
import { type CommentRow, commentsRepository, type ReplyRow } from './comments.repository.js';
import { COMMENT_ID_PREFIX, REPLY_ID_PREFIX, type ReplyRequest, type ReplyResponse, type ReplyStatus } from './comments.schemas.js';
import { capabilitiesOf, commentProviderFailure, toView } from './comments.service.js';

const REPLY_CODE = 'invalid_public_social_comment_reply_request' as const;
/** Threads allows 1,000 replies per profile in 24 hours */
const THREADS_DAILY_REPLIES = 1000;

export class CommentRepliesService {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'>,
    private readonly channels: ChannelsReadPort,
  ) {}

  private get db(): Db {
    return this.deps.database.db;
  }

  private async load(organizationId: string, id: string, channelAccountId?: string): Promise<CommentRow> {
    const row = await commentsRepository.get(this.db, organizationId, id);
    // the optional channelAccountId guard: a comment of another channel is "not found" for this call
    if (!row || (channelAccountId && row.channel_account_id !== channelAccountId))
      throw new AppError('social_comment_not_found', { message: `No social comment ${id} in the principal organization.` });
    return row;
  }

  /**
   * The platform's reply budget where it is known: Threads reports its own count (threads_publishing_limit,
   * replies published from anywhere); when that read fails, the replies posted through this service count.
   */
  private async budget(row: CommentRow, channel: { provider: SocialProvider; ctx: ProviderCallContext }): Promise<ReplyResponse['budget']> {
    if (row.platform !== 'threads') return null;
    if (channel.provider.replyBudget) {
      try {
        const b = await channel.provider.replyBudget(channel.ctx);
        return { name: b.name, limit: b.limit, remaining: Math.max(0, b.limit - b.used), window: `${Math.round(b.windowSeconds / 3600)}h` };
      } catch {
        // fall through to the service's own count
      }
    }
    const since = new Date(this.deps.clock.now().getTime() - 86_400_000);
    const used = await commentsRepository.postedRepliesSince(this.db, row.organization_id, row.channel_account_id, since);
    return {
      name: 'threads_replies',
      limit: THREADS_DAILY_REPLIES,
      remaining: Math.max(0, THREADS_DAILY_REPLIES - used),
      window: '24h',
    };
  }

  async reply(
    organizationId: string,
    id: string,
    req: ReplyRequest,
    opts: { channelAccountId?: string; idempotencyKey?: string },
  ): Promise<ReplyResponse> {
    assertOwnOrganization(organizationId, req.organizationId, 'social_comment_not_found');
    if (opts.idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(opts.idempotencyKey))
      throw new AppError(REPLY_CODE, { message: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.' });
    const row = await this.load(organizationId, id, opts.channelAccountId);
    if (row.brand_id && row.brand_id !== req.brandId)
      throw new AppError(REPLY_CODE, {
        message: `Comment ${id} belongs to another brand.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    const caps = capabilitiesOf(row.platform, row);
    if (!caps.canReply)
      throw new AppError('provider_comment_reply_unsupported', {
        message: row.own
          ? 'This comment was written by the channel itself.'
          : `${row.platform} does not support replies to this comment${row.parent_provider_comment_id ? ' (replies to replies are not possible there)' : ''}.`,
        details: { platform: row.platform },
      });
    const dryRun = req.dryRun ?? true;
    if (!dryRun && !this.deps.config.gateOpen('SERVICE_SOCIAL_COMMENT_WRITE_ENABLED')) throw new AppError('social_comment_write_disabled');
    if (!dryRun && !this.deps.config.gateOpen('SERVICE_PROVIDER_COMMENT_REPLY_ENABLED'))
      throw new AppError('provider_comment_reply_disabled');
    const body = req.body.trim();
    const { channel, provider, ctx } = await this.channels.usableChannel(this.db, organizationId, row.channel_account_id);
    const max = provider.capability.maxTextLength;
    if (body.length === 0 || (max !== undefined && codePointCount(body) > max))
      throw new AppError(REPLY_CODE, {
        message:
          body.length === 0 ? 'The reply body is empty.' : `The reply is longer than ${channel.platform}'s limit of ${max} characters.`,
        fields: [{ path: ['body'], source: 'body' }],
      });
    if (!provider.capability.plugNames.includes('reply'))
      throw new AppError('provider_comment_reply_unsupported', { details: { platform: row.platform } });

    if (dryRun) {
      return {
        mode: 'dry_run',
        reply: { replyId: null, body, providerCommentId: null, state: 'would_post', error: null },
        comment: toView(row),
        budget: await this.budget(row, { provider, ctx }),
      };
    }
    // an earlier reply with a lost answer is settled first by reading the thread
    if (row.reply_status === 'needs_reconciliation') await this.reconcile(row, provider, ctx);

    const now = this.deps.clock.now();
    let attempt: ReplyRow | null = null;
    if (opts.idempotencyKey) {
      const existing = await commentsRepository.replyByKey(this.db, organizationId, row.id, opts.idempotencyKey);
      if (existing) {
        if (existing.body !== body)
          throw new AppError(REPLY_CODE, {
            message: 'This Idempotency-Key was used for a reply with another body.',
            details: { replyId: existing.id },
          });
        const settled =
          existing.state === 'posting' || existing.state === 'needs_reconciliation'
            ? await this.reconcileOne(row, existing, provider, ctx)
            : existing;
        if (settled.state === 'posted' || settled.state === 'needs_reconciliation')
          return this.answer(organizationId, row.id, settled, { provider, ctx });
        if (settled.state === 'failed' && settled.error && (settled.error as { final?: boolean }).final)
          return this.answer(organizationId, row.id, settled, { provider, ctx });
        // confirmed absent from the thread: this request may post it now
        attempt = await commentsRepository.updateReply(this.db, organizationId, settled.id, {
          state: 'posting',
          error: null,
          updated_at: now,
        });
      }
    }
    attempt ??= await commentsRepository.insertReply(this.db, {
      id: newId(REPLY_ID_PREFIX),
      organization_id: organizationId,
      social_comment_id: row.id,
      idempotency_key: opts.idempotencyKey ?? null,
      body,
      state: 'posting',
      created_at: now,
      updated_at: now,
    });
    if (!attempt) {
      // a concurrent request holds this key: answer what it has recorded so far
      const other = await commentsRepository.replyByKey(this.db, organizationId, row.id, opts.idempotencyKey!);
      return this.answer(organizationId, row.id, other!, { provider, ctx });
    }

    try {
      const { providerCommentId } = await provider.postComment(ctx, {
        providerPostId: row.provider_post_id,
        text: body,
        replyToCommentId: row.provider_comment_id,
      });
      const posted = await this.db.transaction().execute(async (tx) => {
        const at = this.deps.clock.now();
        const r = await commentsRepository.updateReply(tx, organizationId, attempt.id, {
          state: 'posted',
          provider_comment_id: providerCommentId,
          updated_at: at,
        });
        await this.recordOwnReply(tx, row, providerCommentId, body, at);
        await this.applyEvent(tx, row.id, organizationId, 'reply_posted', at);
        const fresh = await commentsRepository.get(tx, organizationId, row.id);
        await this.deps.events.record(tx, { organizationId, type: 'social_comment.replied', data: toView(fresh!) });
        return r;
      });
      return this.answer(organizationId, row.id, posted, { provider, ctx });
    } catch (err) {
      const at = this.deps.clock.now();
      const lost = err instanceof ProviderError ? err.category === 'unknown_outcome' : true;
      const error = {
        code: err instanceof ProviderError ? (err.providerCode ?? err.category) : 'reply_error',
        message: err instanceof Error ? err.message : String(err),
        final: err instanceof ProviderError && !lost,
      };
      const saved = await this.db.transaction().execute(async (tx) => {
        const r = await commentsRepository.updateReply(tx, organizationId, attempt.id, {
          state: lost ? 'needs_reconciliation' : 'failed',
          error: JSON.stringify(error),
          updated_at: at,
        });
        await this.applyEvent(tx, row.id, organizationId, lost ? 'reply_lost' : 'reply_failed', at);
        return r;
      });
      if (lost) return this.answer(organizationId, row.id, saved, { provider, ctx });
      throw commentProviderFailure(err as ProviderError, REPLY_CODE);
    }
  }

  /** Settles every reply of the comment whose answer was lost. */
  private async reconcile(row: CommentRow, provider: SocialProvider, ctx: ProviderCallContext): Promise<void> {
    const pending = [
      ...(await commentsRepository.repliesInState(this.db, row.organization_id, row.id, 'needs_reconciliation')),
      ...(await commentsRepository.repliesInState(this.db, row.organization_id, row.id, 'posting')),
    ];
    for (const p of pending) await this.reconcileOne(row, p, provider, ctx);
  }

  /**
   * Reads the thread: the reply is posted when the channel's answer with the same text is under the
   * comment, failed when it is not there. A failed read leaves it needs_reconciliation.
   */
  private async reconcileOne(row: CommentRow, reply: ReplyRow, provider: SocialProvider, ctx: ProviderCallContext): Promise<ReplyRow> {
    let thread: Awaited<ReturnType<SocialProvider['listComments']>>;
    try {
      thread = await provider.listComments(ctx, { providerPostId: row.provider_post_id, limit: 100 });
    } catch {
      return reply;
    }
    const found = thread.find(
      (c) =>
        c.parentProviderCommentId === row.provider_comment_id &&
        c.authorId === ctx.externalAccountId &&
        c.body.trim() === reply.body.trim(),
    );
    return this.db.transaction().execute(async (tx) => {
      const at = this.deps.clock.now();
      if (found) {
        const r = await commentsRepository.updateReply(tx, row.organization_id, reply.id, {
          state: 'posted',
          provider_comment_id: found.providerCommentId,
          error: null,
          updated_at: at,
        });
        await this.recordOwnReply(tx, row, found.providerCommentId, reply.body, at);
        await this.applyEvent(tx, row.id, row.organization_id, 'reply_posted', at);
        return r;
      }
      const r = await commentsRepository.updateReply(tx, row.organization_id, reply.id, {
        state: 'failed',
        error: JSON.stringify({ code: 'reply_not_found', message: 'The reply is not in the thread; it was not posted.', final: false }),
        updated_at: at,
      });
      await this.applyEvent(tx, row.id, row.organization_id, 'reply_failed', at);
      return r;
    });
  }

  /** Our reply as a comment row of the thread (the next sync finds it unchanged). */
  private async recordOwnReply(tx: Db, parent: CommentRow, providerCommentId: string, body: string, at: Date) {
    const existing = await commentsRepository.byProviderIds(tx, parent.organization_id, parent.channel_account_id, [providerCommentId]);
    if (existing.length > 0) return;
    await commentsRepository.insert(tx, {
      id: newId(COMMENT_ID_PREFIX),
      organization_id: parent.organization_id,
      brand_id: parent.brand_id,
      channel_account_id: parent.channel_account_id,
      platform: parent.platform,
      post_target_id: parent.post_target_id,
      provider_post_id: parent.provider_post_id,
      provider_comment_id: providerCommentId,
      parent_provider_comment_id: parent.provider_comment_id,
      body,
      author_name: null,
      author_handle: null,
      permalink_url: null,
      provider_created_at: at,
      own: true,
      status: 'replied',
      reply_status: 'none',
      metrics: '{}',
      last_synced_at: at,
      created_at: at,
      updated_at: at,
    });
  }

  private async applyEvent(tx: Db, id: string, organizationId: string, event: Parameters<typeof transition>[1], at: Date) {
    const current = await commentsRepository.get(tx, organizationId, id, true);
    if (!current) return;
    const next = transition(current.reply_status as ReplyStatus, event);
    if (!next) return;
    await commentsRepository.update(tx, organizationId, id, {
      status: next.status,
      reply_status: next.replyStatus,
      ...(event === 'reply_posted' ? { draft: null } : {}),
      updated_at: at,
    });
  }

  private async answer(
    organizationId: string,
    commentId: string,
    r: ReplyRow,
    channel: { provider: SocialProvider; ctx: ProviderCallContext },
  ): Promise<ReplyResponse> {
    const row = (await commentsRepository.get(this.db, organizationId, commentId))!;
    const e = r.error as { code?: string; message?: string } | null;
    const state = r.state === 'posted' ? 'posted' : r.state === 'failed' ? 'failed' : 'needs_reconciliation';
    return {
      mode: state === 'posted' ? 'replied' : state,
      reply: {
        replyId: r.id,
        body: r.body,
        providerCommentId: r.provider_comment_id,
        state,
        error: e?.code ? { code: e.code, message: e.message ?? '' } : null,
      },
      comment: toView(row),
      budget: await this.budget(row, channel),
    };
  }

  async hide(organizationId: string, id: string, hidden: boolean) {
    const row = await this.load(organizationId, id);
    if (!this.deps.config.gateOpen('SERVICE_SOCIAL_COMMENT_WRITE_ENABLED')) throw new AppError('social_comment_write_disabled');
    const { provider, ctx } = await this.channels.usableChannel(this.db, organizationId, row.channel_account_id);
    if (!capabilitiesOf(row.platform, row).canHide || !provider.hideComment)
      throw new AppError('invalid_public_social_comment_hide_request', {
        message: `${row.platform} does not let the channel hide this comment.`,
        details: { platform: row.platform },
      });
    try {
      await provider.hideComment(ctx, { providerCommentId: row.provider_comment_id, providerPostId: row.provider_post_id, hidden });
    } catch (err) {
      // the platform refusing this comment (X: not a reply in the channel's conversation, or a grant without
      // tweet.moderate.write) is an answer about the request, not a platform outage
      if (err instanceof ProviderError && err.category === 'platform_rejected')
        throw new AppError('invalid_public_social_comment_hide_request', {
          message: `${err.platform} refused to ${hidden ? 'hide' : 'unhide'} this comment: ${err.message}`,
          details: { platform: err.platform, providerCategory: err.category, providerCode: err.providerCode },
        });
      if (err instanceof ProviderError) throw commentProviderFailure(err, 'invalid_public_social_comment_hide_request');
      throw err;
    }
    const updated = await commentsRepository.update(this.db, organizationId, row.id, { hidden, updated_at: this.deps.clock.now() });
    return toView(updated);
  }
}
