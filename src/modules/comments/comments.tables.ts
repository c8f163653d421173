import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from '../../platform/db/schema.js';

export interface SocialCommentsTable {
  id: string;
  organization_id: string;
  brand_id: string | null;
  channel_account_id: string;
  platform: string;
  post_target_id: string | null;
  provider_post_id: string;
  provider_comment_id: string;
  parent_provider_comment_id: string | null;
  body: string;
  author_name: string | null;
  author_handle: string | null;
  permalink_url: string | null;
  provider_created_at: NullableTimestamp;
  /** written by the channel itself (our replies, the page's own comments) */
  own: ColumnType<boolean, boolean | undefined, boolean>;
  hidden: ColumnType<boolean, boolean | undefined, boolean>;
  status: string;
  reply_status: string;
  metrics: Json<Record<string, unknown>>;
  draft: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  last_synced_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SocialCommentRepliesTable {
  id: string;
  organization_id: string;
  social_comment_id: string;
  idempotency_key: string | null;
  body: string;
  /** posting -> posted | failed | needs_reconciliation -> posted | failed */
  state: string;
  provider_comment_id: string | null;
  error: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CommentTables {
  social_comments: SocialCommentsTable;
  social_comment_replies: SocialCommentRepliesTable;
}
