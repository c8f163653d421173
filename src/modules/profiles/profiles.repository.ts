/** Kysely queries of publishing profiles and their channels; every method takes the organization id. */

import type { Selectable } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import type { PublishingProfileChannelsTable, PublishingProfilesTable } from './profiles.tables.js';

export type ProfileRow = Selectable<PublishingProfilesTable>;
export type ProfileChannelRow = Selectable<PublishingProfileChannelsTable>;

/** The columns a save writes (JSON columns as their text). */
export interface ProfileValues {
  name: string;
  slug: string;
  description: string | null;
  is_default: boolean;
  schedule_settings: string;
  comment_settings: string;
  updated_at: Date;
}

export interface ProfileChannelValues {
  platform: PublishingProfileChannelsTable['platform'];
  position: number;
  enabled: boolean;
  settings: string;
  updated_at: Date;
}

const profiles = (db: Executor) => db.selectFrom('publishing_profiles as p').selectAll('p');

export const profilesRepository = {
  async list(db: Executor, organizationId: string, q: { brandId?: string; afterId: string | null; limit: number }): Promise<ProfileRow[]> {
    let query = profiles(db).where('p.organization_id', '=', organizationId);
    if (q.brandId) query = query.where('p.brand_id', '=', q.brandId);
    return (await keysetPage(query, 'p.id', q.afterId, q.limit).execute()) as ProfileRow[];
  },

  async get(db: Executor, organizationId: string, id: string): Promise<ProfileRow | null> {
    return (
      ((await profiles(db).where('p.organization_id', '=', organizationId).where('p.id', '=', id).executeTakeFirst()) as
        | ProfileRow
        | undefined) ?? null
    );
  },

  async findBySlug(db: Executor, organizationId: string, brandId: string, slug: string) {
    return (
      (await db
        .selectFrom('publishing_profiles')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('brand_id', '=', brandId)
        .where('slug', '=', slug)
        .forUpdate()
        .executeTakeFirst()) ?? null
    );
  },

  async channelsOf(db: Executor, organizationId: string, profileIds: string[]): Promise<ProfileChannelRow[]> {
    if (profileIds.length === 0) return [];
    return (await db
      .selectFrom('publishing_profile_channels as pc')
      .selectAll('pc')
      .where('pc.organization_id', '=', organizationId)
      .where('pc.profile_id', 'in', profileIds)
      .orderBy('pc.position')
      .orderBy('pc.id')
      .execute()) as ProfileChannelRow[];
  },

  /** A profile's brand and schedule settings. */
  async scheduleOf(db: Executor, organizationId: string, id: string) {
    return (
      (await db
        .selectFrom('publishing_profiles')
        .select(['id', 'brand_id', 'schedule_settings'])
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst()) ?? null
    );
  },

  /** A profile's enabled channels, in position order. */
  async enabledChannelsOf(db: Executor, organizationId: string, profileId: string) {
    return db
      .selectFrom('publishing_profile_channels as pc')
      .select(['pc.channel_account_id', 'pc.platform', 'pc.settings', 'pc.position'])
      .where('pc.organization_id', '=', organizationId)
      .where('pc.profile_id', '=', profileId)
      .where('pc.enabled', '=', true)
      .orderBy('pc.position')
      .orderBy('pc.id')
      .execute();
  },

  /** The ids of all a profile's channels, enabled or not. */
  async channelIdsOf(db: Executor, organizationId: string, profileId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('publishing_profile_channels')
      .select('channel_account_id')
      .where('organization_id', '=', organizationId)
      .where('profile_id', '=', profileId)
      .execute();
    return rows.map((r) => r.channel_account_id);
  },

  /** The brand's default profile (is_default), if it has one. */
  async defaultOf(db: Executor, organizationId: string, brandId: string) {
    return (
      (await db
        .selectFrom('publishing_profiles')
        .select(['id', 'schedule_settings'])
        .where('organization_id', '=', organizationId)
        .where('brand_id', '=', brandId)
        .where('is_default', '=', true)
        .executeTakeFirst()) ?? null
    );
  },

  /** Disables every enabled profile channel of a channel account (its disconnect); answers how many. */
  async disableChannelAccount(db: Executor, organizationId: string, channelAccountId: string, at: Date): Promise<number> {
    const res = await db
      .updateTable('publishing_profile_channels')
      .set({ enabled: false, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('channel_account_id', '=', channelAccountId)
      .where('enabled', '=', true)
      .executeTakeFirst();
    return Number(res.numUpdatedRows ?? 0);
  },

  /** The brand's default profile, else its first by id. */
  async defaultIdOf(db: Executor, organizationId: string, brandId: string): Promise<string | null> {
    const row = await db
      .selectFrom('publishing_profiles')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .orderBy('is_default', 'desc')
      .orderBy('id')
      .executeTakeFirst();
    return row?.id ?? null;
  },

  /** The profile, locked for the caller's transaction (a save). */
  async getForUpdate(db: Executor, organizationId: string, id: string): Promise<ProfileRow | null> {
    return (
      (await db
        .selectFrom('publishing_profiles')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst()) ?? null
    );
  },

  /** The brand's default profile stops being one (another becomes it in the same transaction). */
  async clearDefault(db: Executor, organizationId: string, brandId: string, at: Date): Promise<void> {
    await db
      .updateTable('publishing_profiles')
      .set({ is_default: false, updated_at: at })
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .where('is_default', '=', true)
      .execute();
  },

  async update(db: Executor, organizationId: string, id: string, values: ProfileValues): Promise<void> {
    await db.updateTable('publishing_profiles').set(values).where('organization_id', '=', organizationId).where('id', '=', id).execute();
  },

  async insert(db: Executor, organizationId: string, row: { id: string; brandId: string; createdAt: Date }, values: ProfileValues) {
    await db
      .insertInto('publishing_profiles')
      .values({ id: row.id, organization_id: organizationId, brand_id: row.brandId, created_at: row.createdAt, ...values })
      .execute();
  },

  /** Removes the profile's channels other than `keep` (every one when `keep` is empty). */
  async removeChannelsExcept(db: Executor, organizationId: string, profileId: string, keep: string[]): Promise<void> {
    let del = db
      .deleteFrom('publishing_profile_channels')
      .where('organization_id', '=', organizationId)
      .where('profile_id', '=', profileId);
    if (keep.length > 0) del = del.where('channel_account_id', 'not in', keep);
    await del.execute();
  },

  /** Adds the channel to the profile, or updates its entry. */
  async upsertChannel(
    db: Executor,
    organizationId: string,
    entry: { id: string; brandId: string; profileId: string; channelAccountId: string; createdAt: Date },
    values: ProfileChannelValues,
  ): Promise<void> {
    await db
      .insertInto('publishing_profile_channels')
      .values({
        id: entry.id,
        organization_id: organizationId,
        brand_id: entry.brandId,
        profile_id: entry.profileId,
        channel_account_id: entry.channelAccountId,
        created_at: entry.createdAt,
        ...values,
      })
      .onConflict((oc) => oc.columns(['profile_id', 'channel_account_id']).doUpdateSet(values))
      .execute();
  },

  /** Whether there was such a profile to delete. */
  async delete(db: Executor, organizationId: string, id: string): Promise<boolean> {
    const res = await db
      .deleteFrom('publishing_profiles')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(res.numDeletedRows ?? 0) > 0;
  },
};
