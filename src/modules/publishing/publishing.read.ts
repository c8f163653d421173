/**
 * What other areas read of publish targets (comments and analytics sync the posts publishing
 * published). The SQL stays with the tables' owner; every read takes the caller's executor.
 */
import type { Executor } from '../database.js';
import { TRANSITIONS } from './publish-states.js';

/** A target the platform published: where and as which post. */
export interface PublishedTarget {
  postTargetId: string;
  organizationId: string;
  brandId: string;
  channelAccountId: string;
  platform: string;
  providerPostId: string;
  publishedAt: Date | null;
}

export interface PublishTargetsReadPort {
  /** The organization's target `id`: its channel and the platform's post id (null before publication); null when there is none. */
  target(db: Executor, organizationId: string, id: string): Promise<{ channelAccountId: string; providerPostId: string | null } | null>;
  /**
   * The brand's most recently published targets on `platforms` (newest first, at most `limit`); only
   * those on `channelAccountIds` when given.
   */
  recentPublished(
    db: Executor,
    organizationId: string,
    q: { brandId: string; platforms: readonly string[]; limit: number; channelAccountIds?: readonly string[] },
  ): Promise<PublishedTarget[]>;
  /**
   * Targets of every organization published between `from` and `to` (inclusive) on `platforms`, the
   * oldest first, at most `limit`: the analytics worker's sweep (each row names its organization).
   */
  publishedBetween(db: Executor, q: { platforms: readonly string[]; from: Date; to: Date; limit: number }): Promise<PublishedTarget[]>;
}

const PUBLISHED_COLUMNS = [
  'id',
  'organization_id',
  'brand_id',
  'channel_account_id',
  'platform',
  'provider_post_id',
  'published_at',
] as const;

type PublishedRow = {
  id: string;
  organization_id: string;
  brand_id: string;
  channel_account_id: string;
  platform: string;
  provider_post_id: string | null;
  published_at: Date | null;
};

const toPublished = (r: PublishedRow): PublishedTarget => ({
  postTargetId: r.id,
  organizationId: r.organization_id,
  brandId: r.brand_id,
  channelAccountId: r.channel_account_id,
  platform: r.platform,
  providerPostId: r.provider_post_id!,
  publishedAt: r.published_at,
});

export const publishTargetsReadPort: PublishTargetsReadPort = {
  async target(db, organizationId, id) {
    const row = await db
      .selectFrom('publish_targets')
      .select(['channel_account_id', 'provider_post_id'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { channelAccountId: row.channel_account_id, providerPostId: row.provider_post_id } : null;
  },

  async recentPublished(db, organizationId, q) {
    if (q.platforms.length === 0 || q.channelAccountIds?.length === 0) return [];
    let query = db
      .selectFrom('publish_targets')
      .select(PUBLISHED_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', q.brandId)
      .where('state', '=', TRANSITIONS.published.to)
      .where('provider_post_id', 'is not', null)
      .where('platform', 'in', [...q.platforms]);
    if (q.channelAccountIds) query = query.where('channel_account_id', 'in', [...q.channelAccountIds]);
    const rows = await query.orderBy('published_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
    return rows.map(toPublished);
  },

  async publishedBetween(db, q) {
    if (q.platforms.length === 0) return [];
    const rows = await db
      .selectFrom('publish_targets')
      .select(PUBLISHED_COLUMNS)
      .where('state', '=', TRANSITIONS.published.to)
      .where('provider_post_id', 'is not', null)
      .where('published_at', '>=', q.from)
      .where('published_at', '<=', q.to)
      .where('platform', 'in', [...q.platforms])
      .orderBy('published_at', 'asc')
      .orderBy('id', 'asc')
      .limit(q.limit)
      .execute();
    return rows.map(toPublished);
  },
};
