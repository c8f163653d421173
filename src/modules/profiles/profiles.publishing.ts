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
