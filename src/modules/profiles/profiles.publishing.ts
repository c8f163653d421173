/** What other areas (publishing, batches) read of publishing profiles: ProfilesReadPort. */

import type { ChannelsReadPort } from '../channels/channels.module.js';
import type { Executor } from '../database.js';
import { profilesRepository } from './profiles.repository.js';

/** A profile as publishing expands it: its enabled channels that can publish, as plan targets. */
export interface ProfileExpansion {
  profileId: string;
  brandId: string;
  targets: Array<{ platform: string; channelAccountId: string; settings?: Record<string, unknown> }>;
  scheduleSettings: Record<string, unknown>;
}

/** What publishing, batches and comments read of publishing profiles; each read takes the caller's executor. */
export interface ProfilesReadPort {
  /**
   * The profile's enabled channels whose accounts can publish (connected, expiring or refresh_needed),
   * as plan targets in position order (null when there is no such profile).
   */
  expandForPublishing(db: Executor, organizationId: string, profileId: string): Promise<ProfileExpansion | null>;
  /** The profile's schedule settings (null when there is no such profile). */
  scheduleSettings(db: Executor, organizationId: string, profileId: string): Promise<Record<string, unknown> | null>;
  /** The default profile of a brand, else its first (its saved batch policy applies when no profile is named). */
  defaultProfileId(db: Executor, organizationId: string, brandId: string): Promise<string | null>;
  /** The brand's default profile (is_default only) with its schedule settings, or null (batches' saved batch policy). */
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

/** The read port over the profiles repository; which channel states can publish is the channels area's rule. */
export function profilesReadPort(channels: Pick<ChannelsReadPort, 'factsForPublishing'>): ProfilesReadPort {
  return {
    async expandForPublishing(db, organizationId, profileId) {
      const profile = await profilesRepository.scheduleOf(db, organizationId, profileId);
      if (!profile) return null;
      const rows = await profilesRepository.enabledChannelsOf(db, organizationId, profileId);
      const facts = await channels.factsForPublishing(
        db,
        organizationId,
        rows.map((r) => r.channel_account_id),
      );
      return {
        profileId: profile.id,
        brandId: profile.brand_id,
        scheduleSettings: (profile.schedule_settings ?? {}) as Record<string, unknown>,
        targets: rows
          .filter((r) => facts.get(r.channel_account_id)?.usable === true)
          .map((r) => ({
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
      const ids = await profilesRepository.channelIdsOf(db, organizationId, profileId);
      return { brandId: profile.brand_id, channelAccountIds: ids };
    },
  };
}
