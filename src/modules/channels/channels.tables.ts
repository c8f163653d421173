/** Row types of the channel, token and connect-state tables (migration 0004-channels; the publishing profile tables of that migration are profiles.tables.ts). */
import type { ColumnType, Generated } from 'kysely';
import type { DefaultedTimestamp, JsonObject } from '../../platform/db/schema.js';
import type { Platform } from '../../providers/provider.js';
import type { ChannelAccountState } from './channel-states.js';

/** An account choice offered when one login gives access to several accounts (Facebook pages). */
export interface PendingChoice {
  externalAccountId: string;
  displayName: string;
  handle: string | null;
  avatarUrl: string | null;
  /** stored secret holding the account's own token, when the platform issues one */
  accessTokenRef: string | null;
}

export interface ChannelAccountsTable {
  id: string;
  organization_id: string;
  brand_id: string | null;
  platform: Platform;
  external_account_id: string;
  display_name: string;
  handle: string | null;
  platform_app_id: string | null;
  state: ChannelAccountState;
  state_reason: string | null;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  access_token_ref: string | null;
  refresh_token_ref: string | null;
  token_expires_at: Date | null;
  additional_settings: JsonObject;
  pending_choices: ColumnType<PendingChoice[] | null, string | null | undefined, string | null>;
  refresh_failures: Generated<number>;
  next_refresh_at: Date | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface ProviderTokenSecretsTable {
  id: string;
  organization_id: string;
  channel_account_id: string | null;
  platform: Platform;
  kind: 'access' | 'refresh';
  ciphertext: string;
  expires_at: Date | null;
  created_at: DefaultedTimestamp;
}

export interface ChannelConnectStatesTable {
  id: string;
  organization_id: string;
  brand_id: string | null;
  platform: Platform;
  secret_hash: string;
  return_url: string | null;
  redirect_uri: string;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  code_verifier: string | null;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: DefaultedTimestamp;
}

export interface ChannelTables {
  channel_accounts: ChannelAccountsTable;
  provider_token_secrets: ProviderTokenSecretsTable;
  channel_connect_states: ChannelConnectStatesTable;
}
