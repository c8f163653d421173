/**
 * Comment sync (per post and per profile) and the comment list. Comments come from each platform's
 * own comment API through the adapter; rows are upserted by (channel, providerCommentId), so a second
 * sync creates nothing new and only refreshes edited bodies and counters.
 */

import { decodeCursor, page } from '../../http/pagination.js';
import { providerFailure } from '../../http/provider-failure.js';
import { AppError, type ErrorCode, isAppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertOwnOrganization } from '../../platform/organization-guard.js';
import { type Platform, type ProviderComment, ProviderError } from '../../providers/provider.js';
import type { AppDeps } from '../app-deps.js';
import type { BrandsReadPort } from '../brands/brands.module.js';
import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { ProfilesReadPort } from '../profiles/profiles.module.js';
import type { PublishTargetsReadPort } from '../publishing/publishing.module.js';
import { transition } from './comment-states.js';
import { type CommentRow, commentsRepository } from './comments.repository.js';
import {
  COMMENT_ID_PREFIX,
  COMMENT_PLATFORMS,
  type ListQuery,
  type ProfileSyncRequest,
  type ProfileSyncResponse,
  type ReplyStatus,
  type SocialCommentView,
  type SyncRequest,
  type SyncResponse,
} from './comments.schemas.js';

/** What each platform lets a channel do with a comment (hide exists on all five comment platforms). */
export function capabilitiesOf(platform: string, row: { own: boolean; parent_provider_comment_id: string | null }) {
  const commentPlatform = (COMMENT_PLATFORMS as readonly string[]).includes(platform);
  // Instagram replies only to top-level comments; nobody answers their own comment
  const canReply = commentPlatform && !row.own && !(platform.startsWith('instagram') && row.parent_provider_comment_id !== null);
  return {
    canReply,
    // X hides replies in conversations the channel started (scope tweet.moderate.write); X itself refuses the rest
    canHide: commentPlatform && !row.own,
    // Facebook and Instagram let the account delete comments on its own media; Threads and X only its own posts
    canDelete: platform === 'facebook_page' || platform.startsWith('instagram') ? true : commentPlatform && row.own,
  };
}

export function toView(r: CommentRow): SocialCommentView {
  const draft = r.draft as { reply?: string; createdAt?: string } | null;
  return {
    socialCommentId: r.id,
    organizationId: r.organization_id,
    brandId: r.brand_id,
    channelAccountId: r.channel_account_id,
    platform: r.platform as Platform,
    postTargetId: r.post_target_id,
    providerPostId: r.provider_post_id,
    providerCommentId: r.provider_comment_id,
    parentProviderCommentId: r.parent_provider_comment_id,
    body: r.body,
    authorName: r.author_name,
    authorHandle: r.author_handle,
    permalinkUrl: r.permalink_url,
    providerCreatedAt: r.provider_created_at ? r.provider_created_at.toISOString() : null,
    status: r.status as SocialCommentView['status'],
    replyStatus: r.reply_status as ReplyStatus,
    metrics: r.metrics ?? {},
    capabilities: capabilitiesOf(r.platform, r),
    isOwn: r.own,
    hidden: r.hidden,
    draft: draft?.reply ? { reply: draft.reply, createdAt: draft.createdAt ?? r.updated_at.toISOString() } : null,
    lastSyncedAt: r.last_synced_at.toISOString(),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/** A platform failure as an API answer. */
export function commentProviderFailure(err: ProviderError, validationCode: ErrorCode) {
  return providerFailure(err, {
    categories: ['user_content'],
    answer: (e, details) =>
      new AppError(validationCode, { message: `${e.platform} refused the request: ${e.message}`, details: { ...details } }),
  });
}

const sameMetrics = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify(a) === JSON.stringify(b);

/** The other areas' reads comment sync uses (their owners answer; comments reads only its own tables). */
export interface CommentReads {
  channels: ChannelsReadPort;
  brands: BrandsReadPort;
  profiles: ProfilesReadPort;
  /** publishing's published targets */
  targets: PublishTargetsReadPort;
}

export class CommentsService {
  private readonly channels: ChannelsReadPort;

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock' | 'events'>,
    private readonly reads: CommentReads,
  ) {
    this.channels = reads.channels;
  }

  private get db() {
    return this.deps.database.db;
  }

  async list(organizationId: string, q: ListQuery) {
    const filters = {
      brandId: q.brandId,
      channelAccountId: q.channelAccountId,
      postTargetId: q.postTargetId,
      providerPostId: q.providerPostId,
      status: q.status,
      replyStatus: q.replyStatus,
    };
    const limit = q.limit ?? 50;
    const after = decodeCursor(q.cursor, filters, 'invalid_public_social_comment_query');
    const rows = await commentsRepository.list(this.db, organizationId, filters, after, limit);
    const p = page(rows, limit, (r) => r.id, filters);
    return { data: p.data.map(toView), nextCursor: p.nextCursor };
  }

  async get(organizationId: string, id: string): Promise<SocialCommentView> {
    const row = await commentsRepository.get(this.db, organizationId, id);
    if (!row) throw new AppError('social_comment_not_found', { message: `No social comment ${id} in the principal organization.` });
    return toView(row);
  }

  private async brandExists(organizationId: string, brandId: string): Promise<void> {
    if (!(await this.reads.brands.brand(this.db, organizationId, brandId)))
      throw new AppError('brand_not_found', { message: `No brand ${brandId} in the principal organization.` });
  }

  async sync(organizationId: string, req: SyncRequest): Promise<SyncResponse> {
    assertOwnOrganization(organizationId, req.organizationId, 'social_comment_not_found');
    const dryRun = req.dryRun ?? true;
    if (!dryRun && !this.deps.config.gateOpen('SERVICE_SOCIAL_COMMENT_WRITE_ENABLED')) throw new AppError('social_comment_write_disabled');
    await this.brandExists(organizationId, req.brandId);
    if (req.postTargetId) {
      const t = await this.reads.targets.target(this.db, organizationId, req.postTargetId);
      if (!t || t.channelAccountId !== req.channelAccountId || t.providerPostId !== req.providerPostId)
        throw new AppError('invalid_public_social_comment_sync_request', {
          message: 'postTargetId must name a published target of this channel with this providerPostId.',
          fields: [{ path: ['postTargetId'], source: 'body' }],
        });
    }
    return this.syncPost(organizationId, {
      brandId: req.brandId,
      channelAccountId: req.channelAccountId,
      platform: req.platform,
      providerPostId: req.providerPostId,
      postTargetId: req.postTargetId ?? null,
      limit: req.limit ?? 50,
      since: req.since,
      dryRun,
    });
  }

  /** Fetches one post's comments and upserts them (or answers what would change in a dry run). */
  private async syncPost(
    organizationId: string,
    p: {
      brandId: string;
      channelAccountId: string;
      platform: string;
      providerPostId: string;
      postTargetId: string | null;
      limit: number;
      since?: string;
      dryRun: boolean;
    },
  ): Promise<SyncResponse> {
    const { channel, provider, ctx } = await this.channels.usableChannel(this.db, organizationId, p.channelAccountId);
    if (channel.platform !== p.platform)
      throw new AppError('invalid_public_social_comment_sync_request', {
        message: `Channel ${p.channelAccountId} is a ${channel.platform} channel, not ${p.platform}.`,
        fields: [{ path: ['platform'], source: 'body' }],
      });
    if (channel.brandId && channel.brandId !== p.brandId)
      throw new AppError('invalid_public_social_comment_sync_request', {
        message: `Channel ${p.channelAccountId} belongs to another brand.`,
        fields: [{ path: ['brandId'], source: 'body' }],
      });
    let fetched: ProviderComment[];
    try {
      fetched = await provider.listComments(ctx, { providerPostId: p.providerPostId, limit: p.limit, since: p.since });
    } catch (err) {
      if (err instanceof ProviderError) throw commentProviderFailure(err, 'invalid_public_social_comment_sync_request');
      throw err;
    }
    fetched = fetched.slice(0, p.limit);
    const ownReplies = await commentsRepository.ownReplyIds(this.db, organizationId, p.channelAccountId);
    const isOwn = (c: ProviderComment) =>
      (c.authorId != null && c.authorId === ctx.externalAccountId) || ownReplies.has(c.providerCommentId);

    const apply = async (db: typeof this.db) => {
      const now = this.deps.clock.now();
      const existing = new Map(
        (
          await commentsRepository.byProviderIds(
            db,
            organizationId,
            p.channelAccountId,
            fetched.map((c) => c.providerCommentId),
          )
        ).map((r) => [r.provider_comment_id, r]),
      );
      let created = 0;
      let updated = 0;
      const items: SyncResponse['comments'] = [];
      const stored: CommentRow[] = [];
      for (const c of fetched) {
        const own = isOwn(c);
        const prev = existing.get(c.providerCommentId);
        const metrics = c.metrics ?? {};
        const common = {
          parentProviderCommentId: c.parentProviderCommentId,
          body: c.body,
          authorName: c.authorName,
          authorHandle: c.authorHandle,
          providerCreatedAt: c.providerCreatedAt,
          providerCommentId: c.providerCommentId,
          isOwn: own,
        };
        if (!prev) {
          created++;
          if (p.dryRun) {
            items.push({ change: 'create', socialCommentId: null, ...common });
            continue;
          }
          const row = await commentsRepository.insert(db, {
            id: newId(COMMENT_ID_PREFIX),
            organization_id: organizationId,
            brand_id: p.brandId,
            channel_account_id: p.channelAccountId,
            platform: p.platform,
            post_target_id: p.postTargetId,
            provider_post_id: p.providerPostId,
            provider_comment_id: c.providerCommentId,
            parent_provider_comment_id: c.parentProviderCommentId,
            body: c.body,
            author_name: c.authorName,
            author_handle: c.authorHandle,
            permalink_url: c.permalinkUrl,
            provider_created_at: c.providerCreatedAt,
            own,
            hidden: c.hidden ?? false,
            // the channel's own comments need no answer
            status: own ? 'replied' : 'needs_reply',
            reply_status: 'none',
            metrics: JSON.stringify(metrics),
            last_synced_at: now,
            created_at: now,
            updated_at: now,
          });
          stored.push(row);
          items.push({ change: 'create', socialCommentId: row.id, ...common });
          if (!own) await this.deps.events.record(db, { organizationId, type: 'social_comment.received', data: toView(row) });
          continue;
        }
        const changed =
          prev.body !== c.body ||
          !sameMetrics(prev.metrics ?? {}, metrics) ||
          prev.parent_provider_comment_id !== c.parentProviderCommentId ||
          prev.author_name !== c.authorName ||
          prev.author_handle !== c.authorHandle ||
          (c.permalinkUrl !== null && prev.permalink_url !== c.permalinkUrl) ||
          (c.hidden !== undefined && prev.hidden !== c.hidden) ||
          prev.own !== own;
        if (changed) updated++;
        if (p.dryRun) {
          items.push({ change: changed ? 'update' : 'unchanged', socialCommentId: prev.id, ...common });
          continue;
        }
        const row = await commentsRepository.update(db, organizationId, prev.id, {
          body: c.body,
          metrics: JSON.stringify(metrics),
          parent_provider_comment_id: c.parentProviderCommentId,
          author_name: c.authorName,
          author_handle: c.authorHandle,
          ...(c.permalinkUrl !== null ? { permalink_url: c.permalinkUrl } : {}),
          ...(c.hidden !== undefined ? { hidden: c.hidden } : {}),
          own,
          ...(own && !prev.own ? { status: 'replied', reply_status: 'none' } : {}),
          last_synced_at: now,
          ...(changed ? { updated_at: now } : {}),
        });
        stored.push(row);
        items.push({ change: changed ? 'update' : 'unchanged', socialCommentId: row.id, ...common });
      }
      if (!p.dryRun) await this.markAnswered(db, organizationId, p.channelAccountId, stored, now);
      return { mode: p.dryRun ? ('dry_run' as const) : ('synced' as const), fetched: fetched.length, created, updated, comments: items };
    };
    if (p.dryRun) return apply(this.db);
    return this.db.transaction().execute((tx) => apply(tx as unknown as typeof this.db));
  }

  /**
   * The channel's own comments answer their parents: the parent becomes replied, and a reply of ours
   * whose answer was lost is reconciled (posted) when its text is found in the thread.
   */
  private async markAnswered(db: typeof this.db, organizationId: string, channelAccountId: string, rows: CommentRow[], now: Date) {
    const own = rows.filter((r) => r.own && r.parent_provider_comment_id);
    if (own.length === 0) return;
    const parents = await commentsRepository.byProviderIds(db, organizationId, channelAccountId, [
      ...new Set(own.map((r) => r.parent_provider_comment_id!)),
    ]);
    for (const parent of parents) {
      const answers = own.filter((r) => r.parent_provider_comment_id === parent.provider_comment_id);
      for (const pending of await commentsRepository.repliesInState(db, organizationId, parent.id, 'needs_reconciliation')) {
        const match = answers.find((a) => a.body.trim() === pending.body.trim());
        if (match)
          await commentsRepository.updateReply(db, organizationId, pending.id, {
            state: 'posted',
            provider_comment_id: match.provider_comment_id,
            updated_at: now,
          });
      }
      const next = transition(parent.reply_status as ReplyStatus, 'own_reply_seen');
      if (next && (next.replyStatus !== parent.reply_status || next.status !== parent.status))
        await commentsRepository.update(db, organizationId, parent.id, {
          status: next.status,
          reply_status: next.replyStatus,
          updated_at: now,
        });
    }
  }

  async syncProfile(organizationId: string, req: ProfileSyncRequest): Promise<ProfileSyncResponse> {
    assertOwnOrganization(organizationId, req.organizationId, 'social_comment_not_found');
    const dryRun = req.dryRun ?? true;
    if (!dryRun && !this.deps.config.gateOpen('SERVICE_SOCIAL_COMMENT_WRITE_ENABLED')) throw new AppError('social_comment_write_disabled');
    await this.brandExists(organizationId, req.brandId);
    let channelAccountIds: string[] | undefined;
    if (req.profileId) {
      const profile = await this.reads.profiles.channelsOfProfile(this.db, organizationId, req.profileId);
      if (!profile || profile.brandId !== req.brandId)
        throw new AppError('invalid_public_social_comment_sync_request', {
          message: `No publishing profile ${req.profileId} of brand ${req.brandId}.`,
          fields: [{ path: ['profileId'], source: 'body' }],
        });
      channelAccountIds = profile.channelAccountIds;
    }
    const targets = await this.reads.targets.recentPublished(this.db, organizationId, {
      brandId: req.brandId,
      platforms: COMMENT_PLATFORMS,
      limit: req.targetLimit ?? 8,
      ...(channelAccountIds ? { channelAccountIds } : {}),
    });
    const out: ProfileSyncResponse = { mode: dryRun ? 'dry_run' : 'synced', targets: [], fetched: 0, created: 0, updated: 0 };
    for (const t of targets) {
      const base = {
        postTargetId: t.postTargetId,
        channelAccountId: t.channelAccountId,
        platform: t.platform,
        providerPostId: t.providerPostId,
      };
      try {
        const r = await this.syncPost(organizationId, {
          ...base,
          brandId: req.brandId,
          limit: req.commentsPerPost ?? 50,
          dryRun,
        });
        out.targets.push({ ...base, ok: true, fetched: r.fetched, created: r.created, updated: r.updated, error: null });
        out.fetched += r.fetched;
        out.created += r.created;
        out.updated += r.updated;
      } catch (err) {
        // one platform's failure is reported on its target; the other targets still sync
        const e = isAppError(err)
          ? { code: err.code, message: err.message }
          : { code: 'provider_request_failed', message: (err as Error).message };
        out.targets.push({ ...base, ok: false, fetched: 0, created: 0, updated: 0, error: e });
      }
    }
    return out;
  }
}
