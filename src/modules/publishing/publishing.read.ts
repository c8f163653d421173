/**
 * What other areas read of publish targets (comments and analytics sync the posts publishing
 * published). The SQL stays with the tables' owner; every read takes the caller's executor.
 */
import type { Executor } from '../database.js';
import { targetsRepository } from './targets.repository.js';

/** A target the platform published: where and as which post. */
interface PublishedTarget {
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
    const row = await targetsRepository.channelAndPost(db, organizationId, id);
    return row ? { channelAccountId: row.channel_account_id, providerPostId: row.provider_post_id } : null;
  },

  async recentPublished(db, organizationId, q) {
    if (q.platforms.length === 0 || q.channelAccountIds?.length === 0) return [];
    const rows = await targetsRepository.recentPublished(db, organizationId, q);
    return rows.map(toPublished);
  },

  async publishedBetween(db, q) {
    if (q.platforms.length === 0) return [];
    const rows = await targetsRepository.publishedBetween(db, q);
    return rows.map(toPublished);
  },
};
