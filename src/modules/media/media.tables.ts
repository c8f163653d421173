/** Row types of the media library tables (migration 0003-media). */
import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp } from '../../platform/db/schema.js';

export interface MediaLibraryItemsTable {
  id: string;
  organization_id: string;
  brand_id: string | null;
  kind: 'image' | 'video' | 'gif';
  mime_type: string;
  sha256: string;
  bytes: ColumnType<number, number, number>;
  storage_backend: 'disk' | 's3';
  storage_key: string;
  metadata: ColumnType<Record<string, unknown>, string, string>;
  lifecycle_state: Generated<'active' | 'deleting'>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface MediaTables {
  media_library_items: MediaLibraryItemsTable;
}
