/** Database rows of a profile and its channels -> the PublishingProfile response shape. */
import type { ProfileChannelRow, ProfileRow } from './profiles.repository.js';
import type { PublishingProfileT } from './profiles.schemas.js';

const iso = (d: Date | string) => new Date(d).toISOString();

export function toProfile(p: ProfileRow, channels: ProfileChannelRow[]): PublishingProfileT {
  return {
    profileId: p.id,
    organizationId: p.organization_id,
    brandId: p.brand_id,
    brandName: p.brand_name,
    brandSlug: p.brand_slug,
    name: p.name,
    slug: p.slug,
    description: p.description,
    isDefault: p.is_default,
    scheduleSettings: p.schedule_settings ?? {},
    commentSettings: p.comment_settings ?? {},
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
    channels: channels.map((c) => ({
      profileChannelId: c.id,
      profileId: c.profile_id,
      organizationId: c.organization_id,
      brandId: c.brand_id,
      channelAccountId: c.channel_account_id,
      platform: c.platform,
      channelDisplayName: c.channel_display_name,
      channelHandle: c.channel_handle,
      channelState: c.channel_state,
      position: c.position,
      enabled: c.enabled,
      settings: c.settings ?? {},
      createdAt: iso(c.created_at),
      updatedAt: iso(c.updated_at),
    })),
  };
}
