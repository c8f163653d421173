/** What the publishing engine reads from publishing profiles. */

import { USABLE_STATES } from '../channels/channel-states.js';
import type { Executor } from '../database.js';
import { type ProfileChannelRow, profilesRepository } from './profiles.repository.js';
import { profileNotFound } from './profiles.rules.js';
import type { BatchPolicyT } from './profiles.schemas.js';

export interface PublishingProfileTargetChannel {
  profileChannelId: string;
  channelAccountId: string;
  platform: ProfileChannelRow['platform'];
  position: number;
  settings: Record<string, unknown>;
}

/**
 * For the publishing engine: the enabled channels of a profile whose channel accounts can publish
 * (connected, expiring or refresh_needed), in position order. 404 publishing_profile_not_found.
 */
export async function profileChannelsForPublishing(
  db: Executor,
  organizationId: string,
  profileId: string,
): Promise<PublishingProfileTargetChannel[]> {
  const profile = await profilesRepository.get(db, organizationId, profileId);
  if (!profile) throw profileNotFound(profileId);
  const rows = await profilesRepository.channelsOf(db, organizationId, [profileId]);
  return rows
    .filter((r) => r.enabled && (USABLE_STATES as readonly string[]).includes(r.channel_state))
    .map((r) => ({
      profileChannelId: r.id,
      channelAccountId: r.channel_account_id,
      platform: r.platform,
      position: r.position,
      settings: r.settings ?? {},
    }));
}

/** For batches: the batch policy saved on the brand's default profile, or null. */
export async function brandDefaultBatchPolicy(db: Executor, organizationId: string, brandId: string): Promise<BatchPolicyT | null> {
  const row = await db
    .selectFrom('publishing_profiles')
    .select('schedule_settings')
    .where('organization_id', '=', organizationId)
    .where('brand_id', '=', brandId)
    .where('is_default', '=', true)
    .executeTakeFirst();
  const policy = (row?.schedule_settings as Record<string, unknown> | undefined)?.batchPolicy;
  return policy ? (policy as BatchPolicyT) : null;
}

/** A profile as publishing expands it: its enabled channels that can publish, as plan targets. */
export interface ProfileExpansion {
  profileId: string;
  brandId: string;
  targets: Array<{ platform: string; channelAccountId: string; settings?: Record<string, unknown> }>;
  scheduleSettings: Record<string, unknown>;
}

/** What publishing, batches and comments read of publishing profiles; each read takes the caller's executor. */
export interface ProfilesReadPort {
  /** The profile's enabled channels that are connected, as plan targets (null when there is no such profile). */
  expandForPublishing(db: Executor, organizationId: string, profileId: string): Promise<ProfileExpansion | null>;
  /** The profile's schedule settings (null when there is no such profile). */
  scheduleSettings(db: Executor, organizationId: string, profileId: string): Promise<Record<string, unknown> | null>;
  /** The default profile of a brand, else its first (its saved batch policy applies when no profile is named). */
  defaultProfileId(db: Executor, organizationId: string, brandId: string): Promise<string | null>;
  /** The brand's default profile (is_default only) with its schedule settings, or null. */
  defaultProfile(
    db: Executor,
    organizationId: string,
    brandId: string,
  ): Promise<{ id: string; scheduleSettings: Record<string, unknown> } | null>;
  /** The profile's brand and the ids of all its channels, enabled or not (null when there is no such profile). */
  channelsOfProfile(
    db: Executor,
    organizationId: string,
    profileId: string,
  ): Promise<{ brandId: string; channelAccountIds: string[] } | null>;
}

export const profilesReadPort: ProfilesReadPort = {
  async expandForPublishing(db, organizationId, profileId) {
    const profile = await profilesRepository.scheduleOf(db, organizationId, profileId);
    if (!profile) return null;
    const rows = await profilesRepository.usableChannelsOf(db, organizationId, profileId, USABLE_STATES);
    return {
      profileId: profile.id,
      brandId: profile.brand_id,
      scheduleSettings: (profile.schedule_settings ?? {}) as Record<string, unknown>,
      targets: rows.map((r) => ({
        platform: r.platform,
        channelAccountId: r.channel_account_id,
        ...(r.settings && Object.keys(r.settings).length > 0 ? { settings: r.settings as Record<string, unknown> } : {}),
      })),
    };
  },

  async scheduleSettings(db, organizationId, profileId) {
    const row = await profilesRepository.scheduleOf(db, organizationId, profileId);
    return row ? ((row.schedule_settings ?? {}) as Record<string, unknown>) : null;
  },

  async defaultProfileId(db, organizationId, brandId) {
    return profilesRepository.defaultIdOf(db, organizationId, brandId);
  },

  async defaultProfile(db, organizationId, brandId) {
    const row = await profilesRepository.defaultOf(db, organizationId, brandId);
    return row ? { id: row.id, scheduleSettings: (row.schedule_settings ?? {}) as Record<string, unknown> } : null;
  },

  async channelsOfProfile(db, organizationId, profileId) {
    const profile = await profilesRepository.scheduleOf(db, organizationId, profileId);
    if (!profile) return null;
    const rows = await db
      .selectFrom('publishing_profile_channels')
      .select('channel_account_id')
      .where('organization_id', '=', organizationId)
      .where('profile_id', '=', profileId)
      .execute();
    return { brandId: profile.brand_id, channelAccountIds: rows.map((r) => r.channel_account_id) };
  },
};
