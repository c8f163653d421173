/**
 * Writing the outcome of a platform login: tokens into the vault, and the channel upserted as
 * connected (one account) or waiting in in_between_steps with its account choices (several).
 */

import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import type { Encryptor } from '../../platform/secrets/encryption.js';
import type { OAuthTokens, ProviderAccount } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { Db, Executor } from '../database.js';
import { type ChannelEventSink, recordChannelStateEvent } from './channel-events.js';
import { assertTransition } from './channel-states.js';
import { channelsRepository } from './channels.repository.js';
import type { PendingChoice } from './channels.tables.js';
import type { ConnectStateRow } from './connect-states.js';
import type { TokenVault } from './token-vault.js';

/** What the OAuth callback, the account choice and the linker take: the database, the adapters, the token vault. */
export interface CallbackDeps {
  db: Db;
  registry: ProviderRegistry;
  vault: TokenVault;
  encryptor: Encryptor;
  clock: Clock;
  events?: ChannelEventSink;
}

export class ChannelLinker {
  constructor(private readonly deps: CallbackDeps) {}

  async storeTokens(tx: Executor, row: ConnectStateRow, tokens: OAuthTokens, account: ProviderAccount | null, now: Date) {
    const accessToken = account?.accountAccessToken ?? tokens.accessToken;
    // an account token (Facebook page token from a long-lived user token) does not expire
    const expiresAt = account?.accountAccessToken ? null : tokens.expiresAt;
    const accessRef = await this.storeToken(tx, row, 'access', accessToken, expiresAt, now);
    const refreshRef = tokens.refreshToken
      ? await this.storeToken(tx, row, 'refresh', tokens.refreshToken, tokens.refreshTokenExpiresAt, now)
      : null;
    return { accessRef, refreshRef, expiresAt };
  }

  /** Inserts a channel of the login's organization, brand and platform under the platform's app; answers its id. */
  private async insertChannel(
    tx: Executor,
    row: ConnectStateRow,
    fields: Omit<Parameters<typeof channelsRepository.insert>[1], 'id' | 'organizationId' | 'brandId' | 'platform' | 'platformAppId'>,
  ): Promise<string> {
    const id = newId('cha');
    await channelsRepository.insert(tx, {
      id,
      organizationId: row.organization_id,
      brandId: row.brand_id,
      platform: row.platform,
      platformAppId: this.deps.registry.appConfig(row.platform).clientId,
      ...fields,
    });
    return id;
  }

  /** Stores one token of the login's organization and platform in the vault; answers its reference. */
  private storeToken(
    tx: Executor,
    row: ConnectStateRow,
    kind: 'access' | 'refresh',
    token: string,
    expiresAt: Date | null | undefined,
    now: Date,
  ): Promise<string> {
    return this.deps.vault.store(tx, { organizationId: row.organization_id, platform: row.platform, kind, token, expiresAt, at: now });
  }

  /** Upserts the channel of one account as connected with fresh tokens; answers its id. */
  async connectOne(
    tx: Executor,
    row: ConnectStateRow,
    tokens: OAuthTokens,
    account: ProviderAccount,
    now: Date,
    refs?: {
      accessRef: string;
      refreshRef: string | null;
      expiresAt: Date | null;
    },
  ): Promise<string> {
    const { vault } = this.deps;
    const { accessRef, refreshRef, expiresAt } = refs ?? (await this.storeTokens(tx, row, tokens, account, now));
    const existing = await channelsRepository.lockByExternal(tx, row.organization_id, row.platform, account.externalAccountId);
    const settings = { ...tokens.extra };
    if (!existing) {
      const id = await this.insertChannel(tx, row, {
        externalAccountId: account.externalAccountId,
        displayName: account.displayName,
        handle: account.handle,
        state: 'connected',
        scopes: tokens.scopes,
        accessTokenRef: accessRef,
        refreshTokenRef: refreshRef,
        tokenExpiresAt: expiresAt,
        additionalSettings: settings,
        at: now,
      });
      await vault.attach(tx, row.organization_id, id, [accessRef, refreshRef]);
      await recordChannelStateEvent(this.deps.events, tx, row.organization_id, id, null);
      return id;
    }
    assertTransition(existing.state, 'connected');
    await channelsRepository.update(tx, row.organization_id, existing.id, {
      brand_id: row.brand_id ?? existing.brand_id,
      display_name: account.displayName,
      handle: account.handle,
      platform_app_id: this.deps.registry.appConfig(row.platform).clientId,
      state: 'connected',
      state_reason: null,
      scopes: tokens.scopes,
      access_token_ref: accessRef,
      refresh_token_ref: refreshRef,
      token_expires_at: expiresAt,
      additional_settings: JSON.stringify({
        ...(existing.additional_settings ?? {}),
        ...settings,
      }),
      pending_choices: null,
      refresh_failures: 0,
      next_refresh_at: null,
      updated_at: now,
    });
    await vault.attach(tx, row.organization_id, existing.id, [accessRef, refreshRef]);
    await vault.deleteForChannel(tx, row.organization_id, existing.id, [accessRef, refreshRef]);
    await recordChannelStateEvent(this.deps.events, tx, row.organization_id, existing.id, existing.state);
    return existing.id;
  }

  /** One pending channel holding the user token and each account's own token, waiting for a choice. */
  async waitForChoice(tx: Executor, row: ConnectStateRow, tokens: OAuthTokens, accounts: ProviderAccount[], now: Date): Promise<string> {
    const { vault } = this.deps;
    const user = await this.storeTokens(tx, row, tokens, null, now);
    const choices: PendingChoice[] = [];
    for (const a of accounts) {
      const ref = a.accountAccessToken ? await this.storeToken(tx, row, 'access', a.accountAccessToken, undefined, now) : null;
      choices.push({
        externalAccountId: a.externalAccountId,
        displayName: a.displayName,
        handle: a.handle,
        avatarUrl: a.avatarUrl,
        accessTokenRef: ref,
      });
    }
    const id = await this.insertChannel(tx, row, {
      // a placeholder until the choice: the connect request's own id keeps the unique key free
      externalAccountId: `pending:${row.id}`,
      displayName: `Choose one of ${accounts.length} ${row.platform} accounts`,
      handle: null,
      state: 'in_between_steps',
      stateReason: 'account_choice_required',
      scopes: tokens.scopes,
      accessTokenRef: user.accessRef,
      refreshTokenRef: user.refreshRef,
      tokenExpiresAt: user.expiresAt,
      additionalSettings: { ...tokens.extra },
      pendingChoices: choices,
      at: now,
    });
    await vault.attach(tx, row.organization_id, id, [user.accessRef, user.refreshRef, ...choices.map((c) => c.accessTokenRef)]);
    return id;
  }
}
