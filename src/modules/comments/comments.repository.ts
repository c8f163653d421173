/** SQL of the comments area; every query is scoped by organization id. */

import type { Insertable, Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { SocialCommentRepliesTable, SocialCommentsTable } from './comments.tables.js';

export type CommentRow = Selectable<SocialCommentsTable>;
export type ReplyRow = Selectable<SocialCommentRepliesTable>;
type CommentSet = Partial<Record<keyof SocialCommentsTable, unknown>>;

export interface CommentFilters {
  brandId?: string;
  channelAccountId?: string;
  postTargetId?: string;
  providerPostId?: string;
  status?: string;
  replyStatus?: string;
}

export const commentsRepository = {
  async list(db: Executor, organizationId: string, f: CommentFilters, afterId: string | null, limit: number): Promise<CommentRow[]> {
    let q = db.selectFrom('social_comments').selectAll().where('organization_id', '=', organizationId);
    if (f.brandId) q = q.where('brand_id', '=', f.brandId);
    if (f.channelAccountId) q = q.where('channel_account_id', '=', f.channelAccountId);
    if (f.postTargetId) q = q.where('post_target_id', '=', f.postTargetId);
    if (f.providerPostId) q = q.where('provider_post_id', '=', f.providerPostId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.replyStatus) q = q.where('reply_status', '=', f.replyStatus);
    return keysetPage(q, 'id', afterId, limit).execute();
  },

  async get(db: Executor, organizationId: string, id: string, forUpdate = false): Promise<CommentRow | null> {
    let q = db.selectFrom('social_comments').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
    if (forUpdate) q = q.forUpdate();
    return (await q.executeTakeFirst()) ?? null;
  },

  async byProviderIds(db: Executor, organizationId: string, channelAccountId: string, ids: string[]): Promise<CommentRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom('social_comments')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('channel_account_id', '=', channelAccountId)
      .where('provider_comment_id', 'in', ids)
      .execute();
  },

  async insert(db: Executor, row: Insertable<SocialCommentsTable>): Promise<CommentRow> {
    return db.insertInto('social_comments').values(row).returningAll().executeTakeFirstOrThrow();
  },

  async update(db: Executor, organizationId: string, id: string, set: CommentSet): Promise<CommentRow> {
    return db
      .updateTable('social_comments')
      .set(set as never)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** provider ids of the replies this service posted on the channel (recognised as the channel's own) */
  async ownReplyIds(db: Executor, organizationId: string, channelAccountId: string): Promise<Set<string>> {
    const rows = await db
      .selectFrom('social_comment_replies as r')
      .innerJoin('social_comments as c', 'c.id', 'r.social_comment_id')
      .select('r.provider_comment_id')
      .where('r.organization_id', '=', organizationId)
      .where('c.channel_account_id', '=', channelAccountId)
      .where('r.provider_comment_id', 'is not', null)
      .execute();
    return new Set(rows.map((r) => r.provider_comment_id!));
  },

  async replyByKey(db: Executor, organizationId: string, commentId: string, key: string): Promise<ReplyRow | null> {
    return (
      (await db
        .selectFrom('social_comment_replies')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('social_comment_id', '=', commentId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst()) ?? null
    );
  },

  async repliesInState(db: Executor, organizationId: string, commentId: string, state: string): Promise<ReplyRow[]> {
    return db
      .selectFrom('social_comment_replies')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('social_comment_id', '=', commentId)
      .where('state', '=', state)
      .orderBy('id')
      .execute();
  },

  /** Claims the key; null when another request already holds it. */
  async insertReply(db: Executor, row: Insertable<SocialCommentRepliesTable>): Promise<ReplyRow | null> {
    return (
      (await db
        .insertInto('social_comment_replies')
        .values(row)
        .onConflict((oc) => oc.columns(['social_comment_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst()) ?? null
    );
  },

  async updateReply(db: Executor, organizationId: string, id: string, set: Partial<Record<keyof SocialCommentRepliesTable, unknown>>) {
    return db
      .updateTable('social_comment_replies')
      .set(set as never)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** How many replies to the channel's comments were posted since `since` (the service's own reply budget). */
  async postedRepliesSince(db: Executor, organizationId: string, channelAccountId: string, since: Date): Promise<number> {
    const used = await db
      .selectFrom('social_comment_replies as r')
      .innerJoin('social_comments as c', 'c.id', 'r.social_comment_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('r.organization_id', '=', organizationId)
      .where('c.channel_account_id', '=', channelAccountId)
      .where('r.state', '=', 'posted')
      .where('r.updated_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(used.n);
  },
};
