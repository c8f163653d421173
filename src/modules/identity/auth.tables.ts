import type { ColumnType } from 'kysely';
import type { CreatedAt, DefaultedTimestamp } from '../../platform/db/schema.js';

export interface AuthExchangeCodesTable {
  code_hash: string;
  nonce_hash: string;
  binding_hash: string;
  origin: string;
  organization_id: string;
  user_id: string;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: CreatedAt;
}

export interface OauthAppsTable {
  id: string;
  /** null for a dynamically registered client: it belongs to no organization; its grants do */
  organization_id: string | null;
  /** dashboard (registered by an admin, confidential) | dynamic (RFC 7591, public, no secret) */
  registration: ColumnType<string, string | undefined, string>;
  /** the address a dynamic registration came from (for the dashboard's list) */
  registered_from: string | null;
  name: string;
  client_id: string;
  client_secret_hash: string | null;
  client_secret_ref: string | null;
  redirect_uris: string[];
  scopes: string[];
  created_at: CreatedAt;
  updated_at: DefaultedTimestamp;
  deleted_at: Date | null;
}

export interface OauthAuthorizationsTable {
  id: string;
  organization_id: string;
  oauth_app_id: string;
  user_id: string;
  scopes: string[];
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface OauthCodesTable {
  code_hash: string;
  authorization_id: string;
  redirect_uri: string;
  code_challenge: string;
  /** RFC 8707 resource the code (and the tokens it issues) is bound to */
  resource: string | null;
  scopes: string[];
  expires_at: Date;
  consumed_at: Date | null;
  created_at: CreatedAt;
}

export interface OauthTokensTable {
  id: string;
  token_hash: string;
  /** access | refresh */
  kind: string;
  authorization_id: string;
  family_id: string;
  code_hash: string | null;
  /** RFC 8707 resource (audience): the API (null or the issuer) or the MCP endpoint */
  resource: string | null;
  scopes: string[];
  expires_at: Date;
  consumed_at: Date | null;
  revoked_at: Date | null;
  /** for a consumed refresh token: the encrypted pair it was exchanged for (answered again within the grace window) */
  replaced_by_pair: string | null;
  created_at: CreatedAt;
}

export interface AuthTables {
  auth_exchange_codes: AuthExchangeCodesTable;
  oauth_apps: OauthAppsTable;
  oauth_authorizations: OauthAuthorizationsTable;
  oauth_codes: OauthCodesTable;
  oauth_tokens: OauthTokensTable;
}
