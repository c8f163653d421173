/** Row types of the publishing profile tables (created by migration 0004-channels); the profiles area owns them. */
import type { ColumnType } from 'kysely';
import type { Platform } from '../../providers/provider.js';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type JsonObject = ColumnType<Record<string, unknown>, string | undefined, string>;

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
  created_at: Timestamp;
  updated_at: Timestamp;
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
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProfileTables {
  publishing_profiles: PublishingProfilesTable;
  publishing_profile_channels: PublishingProfileChannelsTable;
}
