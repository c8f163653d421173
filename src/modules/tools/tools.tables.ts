/** Row types of the tool API tables (migration 0002-tools). */
import type { ColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../../platform/db/schema.js';

interface ToolApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  /** the visible, non-secret start of the key (also the lookup index) */
  prefix: string;
  last_four: string;
  /** sha256 of the whole key */
  secret_hash: string;
  scopes: string[];
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: CreatedAt;
}

interface ToolIdempotencyTable {
  api_key_id: string;
  tool: string;
  idempotency_key: string;
  /** sha256 of the canonical JSON body */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  /** the response body exactly as first sent */
  response_body: string | null;
  /** jsonb, written as a JSON string */
  response_headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface ToolTables {
  tool_api_keys: ToolApiKeysTable;
  tool_idempotency: ToolIdempotencyTable;
}
