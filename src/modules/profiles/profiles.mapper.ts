/**
 * Database rows of a profile and its channels, their channel accounts' facts (from the channels read port)
 * and its brand's name -> the PublishingProfile response shape.
 */
import type { BrandName } from '../brands/brands.module.js';
import type { ChannelFactsForPublishing } from '../channels/channels.module.js';
import type { ProfileChannelRow, ProfileRow } from './profiles.repository.js';
import type { PublishingProfileT } from './profiles.schemas.js';

const iso = (d: Date | string) => new Date(d).toISOString();

/** A profile channel row with its channel account's name, handle and state. */
export interface ProfileChannelView {
  row: ProfileChannelRow;
  channel: Pick<ChannelFactsForPublishing, 'displayName' | 'handle' | 'state'>;
}

export function toProfile(p: ProfileRow, brand: BrandName | undefined, channels: ProfileChannelView[]): PublishingProfileT {
  return {
    profileId: p.id,
    organizationId: p.organization_id,
    brandId: p.brand_id,
    brandName: brand?.name ?? null,
    brandSlug: brand?.slug ?? null,
    name: p.name,
    slug: p.slug,
    description: p.description,
    isDefault: p.is_default,
    scheduleSettings: p.schedule_settings ?? {},
    commentSettings: p.comment_settings ?? {},
    createdAt: iso(p.created_at),
    updatedAt: iso(p.updated_at),
    channels: channels.map(({ row: c, channel }) => ({
      profileChannelId: c.id,
      profileId: c.profile_id,
      organizationId: c.organization_id,
      brandId: c.brand_id,
      channelAccountId: c.channel_account_id,
      platform: c.platform,
      channelDisplayName: channel.displayName,
      channelHandle: channel.handle,
      channelState: channel.state,
      position: c.position,
      enabled: c.enabled,
      settings: c.settings ?? {},
      createdAt: iso(c.created_at),
      updatedAt: iso(c.updated_at),
    })),
  };
}
