import type { DefaultedTimestamp, JsonObject } from '../../platform/db/schema.js';
import type { Platform } from '../../providers/provider.js';

export interface PublishingProfilesTable {
  id: string;
  organization_id: string;
  brand_id: string;
  name: string;
  slug: string;
  description: string | null;
  is_default: boolean;
  schedule_settings: JsonObject;
  comment_settings: JsonObject;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface PublishingProfileChannelsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  profile_id: string;
  channel_account_id: string;
  platform: Platform;
  position: number;
  enabled: boolean;
  settings: JsonObject;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface ProfileTables {
  publishing_profiles: PublishingProfilesTable;
  publishing_profile_channels: PublishingProfileChannelsTable;
}
