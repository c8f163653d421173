import type { ColumnType } from 'kysely';
import type { CreatedAt, DefaultedTimestamp } from '../../platform/db/schema.js';

interface AuthExchangeCodesTable {
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

interface OauthAuthorizationsTable {
  id: string;
  organization_id: string;
  oauth_app_id: string;
  user_id: string;
  scopes: string[];
  created_at: CreatedAt;
  revoked_at: Date | null;
}

interface OauthCodesTable {
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

interface OauthTokensTable {
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

/** A sign-in through the OpenID Connect provider between its start and its callback (single use, 10 minutes). */
interface IdentityProviderLoginsTable {
  /** sha256 of the `state` sent to the provider */
  state_hash: string;
  /** sha256 of the HttpOnly cookie value bound to the browser that started it */
  binding_hash: string;
  origin: string;
  /** the PKCE verifier (its S256 challenge went to the provider) */
  code_verifier: string;
  nonce: string;
  redirect_uri: string;
  return_to: string | null;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: Date;
}

/** A provider account (issuer + subject) linked to a user, by verified email or at just-in-time creation. */
interface IdentityProviderLinksTable {
  issuer: string;
  subject: string;
  user_id: string;
  /** the verified email the link was made with */
  email: string;
  created_at: Date;
  last_sign_in_at: Date;
}

/** People with a verified email of this domain and no account join the organization on first sign-in. */
interface IdentityProviderJoinDomainsTable {
  email_domain: string;
  organization_id: string;
  /** member | admin */
  role: string;
  created_at: Date;
}

export interface AuthTables {
  identity_provider_logins: IdentityProviderLoginsTable;
  identity_provider_links: IdentityProviderLinksTable;
  identity_provider_join_domains: IdentityProviderJoinDomainsTable;
  auth_exchange_codes: AuthExchangeCodesTable;
  oauth_apps: OauthAppsTable;
  oauth_authorizations: OauthAuthorizationsTable;
  oauth_codes: OauthCodesTable;
  oauth_tokens: OauthTokensTable;
}
