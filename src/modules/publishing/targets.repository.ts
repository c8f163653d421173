/**
 * Publish target statements beside the engine's: what other areas read (published targets), the
 * platform notices' lookups, the permalink fill-in, the slots' placed posts, the media reference check
 * and the channel disconnect. Every statement is confined to one organization, except the two that
 * answer across organizations by design (a platform notice names no organization; the analytics sweep),
 * whose rows name their organization.
 */
import { sql } from 'kysely';
import type { Executor } from '../database.js';
import { fromStates, IN_FLIGHT_STATES, OPEN_STATES, PENDING_STATES, type TargetEvent, TRANSITIONS } from './publish-states.js';

const PUBLISHED_COLUMNS = [
  'id',
  'organization_id',
  'brand_id',
  'channel_account_id',
  'platform',
  'provider_post_id',
  'published_at',
] as const;

const placedAt = sql<Date>`coalesce(published_at, scheduled_at)`;

export const targetsRepository = {
  async channelAndPost(db: Executor, organizationId: string, id: string) {
    return db
      .selectFrom('publish_targets')
      .select(['channel_account_id', 'provider_post_id'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** The brand's newest published targets on `platforms` (only on `channelAccountIds` when given). */
  async recentPublished(
    db: Executor,
    organizationId: string,
    q: { brandId: string; platforms: readonly string[]; limit: number; channelAccountIds?: readonly string[] },
  ) {
    let query = db
      .selectFrom('publish_targets')
      .select(PUBLISHED_COLUMNS)
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', q.brandId)
      .where('state', '=', TRANSITIONS.published.to)
      .where('provider_post_id', 'is not', null)
      .where('platform', 'in', [...q.platforms]);
    if (q.channelAccountIds) query = query.where('channel_account_id', 'in', [...q.channelAccountIds]);
    return query.orderBy('published_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
  },

  /** Across organizations (the analytics worker's sweep): published between `from` and `to`, the oldest first. */
  async publishedBetween(db: Executor, q: { platforms: readonly string[]; from: Date; to: Date; limit: number }) {
    return db
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
  },

  /** Across organizations (a platform notice names none): the targets holding this platform post. */
  async ofPost(db: Executor, q: { platforms: readonly string[]; channelAccountIds: readonly string[]; providerPostId: string }) {
    return db
      .selectFrom('publish_targets')
      .select(['id', 'organization_id', 'brand_id', 'channel_account_id', 'platform', 'provider_post_id', 'state'])
      .where('platform', 'in', q.platforms)
      .where('channel_account_id', 'in', q.channelAccountIds)
      .where('provider_post_id', '=', q.providerPostId)
      .orderBy('id')
      .execute();
  },

  async stateOf(db: Executor, organizationId: string, id: string) {
    return db
      .selectFrom('publish_targets')
      .select(['id', 'state', 'version', 'provider_url'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  /** Records the public URL of a target that has none; whether it did. */
  async recordUrl(db: Executor, organizationId: string, id: string, url: string, at: Date): Promise<boolean> {
    const r = await db
      .updateTable('publish_targets')
      .set({ provider_url: url, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('provider_url', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },

  async jobExists(db: Executor, organizationId: string, jobId: string): Promise<boolean> {
    const row = await db
      .selectFrom('publish_jobs')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', jobId)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Published targets with a post id and no public URL (of one job, or some ids), in id order. */
  async publishedWithoutUrl(db: Executor, organizationId: string, q: { jobId?: string; ids?: readonly string[]; limit: number }) {
    let query = db
      .selectFrom('publish_targets')
      .select(['id', 'job_id', 'channel_account_id', 'platform', 'provider_post_id'])
      .where('organization_id', '=', organizationId)
      .where('state', '=', TRANSITIONS.published.to)
      .where('provider_url', 'is', null)
      .where('provider_post_id', 'is not', null);
    if (q.jobId) query = query.where('job_id', '=', q.jobId);
    if (q.ids && q.ids.length > 0) query = query.where('id', 'in', [...q.ids]);
    return query.orderBy('id').limit(q.limit).execute();
  },

  /**
   * The brand's pending, in-flight and published targets placed (published, else scheduled) between
   * `from` and `to`; of one channel, or of one platform.
   */
  async placedBetween(
    db: Executor,
    organizationId: string,
    q: { brandId: string; from: Date; to: Date; channelAccountId?: string; platform?: string },
  ) {
    let query = db
      .selectFrom('publish_targets')
      .select(['id', 'channel_account_id', 'platform', placedAt.as('at')])
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', q.brandId)
      .where('state', 'in', [...PENDING_STATES, ...IN_FLIGHT_STATES, TRANSITIONS.published.to])
      .where(placedAt, '>=', q.from)
      .where(placedAt, '<=', q.to);
    if (q.channelAccountId) query = query.where('channel_account_id', '=', q.channelAccountId);
    else if (q.platform) query = query.where('platform', '=', q.platform);
    return query.execute();
  },

  /** Up to 20 unfinished targets whose job's media references the media library item. */
  async openUsingMedia(db: Executor, organizationId: string, mediaLibraryItemId: string) {
    return db
      .selectFrom('publish_targets as t')
      .innerJoin('publish_jobs as j', 'j.id', 't.job_id')
      .select('t.id')
      .where('j.organization_id', '=', organizationId)
      .where('t.state', 'in', [...OPEN_STATES])
      .where(sql<boolean>`j.media @> ${JSON.stringify([{ mediaLibraryItemId }])}::jsonb`)
      .limit(20)
      .execute();
  },

  /** Moves the channel's targets in one of `among` (allowed for `event`) by `event`; the moved ids and jobs. */
  async moveChannelTargets(
    tx: Executor,
    organizationId: string,
    channelAccountId: string,
    q: { event: TargetEvent; among: readonly string[]; reason: string; at: Date },
  ) {
    return (
      tx
        .updateTable('publish_targets')
        .set((eb) => ({
          state: TRANSITIONS[q.event].to,
          version: eb('version', '+', 1),
          state_reason: q.reason,
          next_attempt_at: null,
          updated_at: q.at,
        }))
        .where('organization_id', '=', organizationId)
        .where('channel_account_id', '=', channelAccountId)
        .where('state', 'in', fromStates(q.event, q.among))
        // a target whose post its worker noted (a burst's held outcome) is published, whatever follows
        .where('posted_post_id', 'is', null)
        .returning(['id', 'job_id'])
        .execute()
    );
  },
};
