/**
 * Column types shared by every area's tables and the foundation tables (organizations, users,
 * memberships, keys, brands, heartbeats, sessions). Each area declares its own tables in
 * `<area>.tables.ts`; src/modules/database.ts merges them into the Database type. Timestamps are timestamptz (Date in, Date out); ids are prefixed ULIDs (see platform/ids.ts).
 */

import type { ColumnType, Generated } from 'kysely';

/** a timestamp every insert sets */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** a timestamp with a database default (an insert may leave it out) */
export type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** a timestamp that may be null (an insert may leave it out) */
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** a JSON object column with a database default */
export type JsonObject = ColumnType<Record<string, unknown>, string | undefined, string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type Json<T = unknown> = ColumnType<T, string, string>;

interface OrganizationsTable {
  id: string;
  name: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

interface UsersTable {
  id: string;
  email: string;
  password_hash: string | null;
  display_name: string | null;
  /** tool API membership tier: basic | pro | max */
  tier: Generated<string>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: string;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  name: string;
  /** the visible, non-secret start of the key (also the lookup index) */
  prefix: string;
  /** sha256 of the whole key (keys are 190+ bits of randomness, so a fast hash is enough) */
  secret_hash: string;
  scopes: string[];
  created_by_user_id: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  expires_at: Date | null;
  created_at: CreatedAt;
}

export interface BrandsTable {
  id: string;
  organization_id: string;
  name: string;
  slug: string;
  timezone: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface BrandProductsTable {
  id: string;
  organization_id: string;
  brand_id: string;
  name: string;
  slug: string;
  product_url: string | null;
  store_product_id: string | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

interface WorkerHeartbeatsTable {
  worker_id: string;
  hostname: string;
  pid: number;
  started_at: Date;
  beat_at: Date;
}

interface AuthSessionsTable {
  id: string;
  organization_id: string;
  user_id: string;
  token_hash: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: CreatedAt;
  /** auth: sliding idle expiry (expires_at is the absolute one) */
  idle_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_seen_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface FoundationTables {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_keys: ApiKeysTable;
  brands: BrandsTable;
  brand_products: BrandProductsTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  auth_sessions: AuthSessionsTable;
}
