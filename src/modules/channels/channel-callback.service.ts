/**
 * GET /v1/channel-accounts/oauth/callback/{platform}: consumes the state once, exchanges the code,
 * stores the tokens encrypted, looks up the accounts and upserts the channel. When the login gives
 * access to several accounts (Facebook pages), one channel waits in `in_between_steps` with the
 * choices; POST /v1/channel-accounts/{id}/select completes it.
 */

import { AppError } from '../../platform/errors.js';
import { type OAuthTokens, type Platform, type ProviderAccount, ProviderError } from '../../providers/provider.js';
import { type CallbackDeps, ChannelLinker } from './channel-linker.js';
import { channelsRepository } from './channels.repository.js';
import type { PendingChoice } from './channels.tables.js';
import { codeVerifierOf, consumeConnectState, findConnectState } from './connect-states.js';

export type CallbackOutcome =
  | {
      result: 'connected' | 'in_between_steps';
      platform: Platform;
      channelAccountId: string;
      returnUrl: string | null;
      choices?: Array<Omit<PendingChoice, 'accessTokenRef'>>;
    }
  | {
      result: 'error';
      platform: Platform;
      error: string;
      message: string;
      returnUrl: string | null;
    };

const publicChoice = ({ accessTokenRef: _secret, ...rest }: PendingChoice) => rest;

export class ChannelCallbackService {
  private readonly linker: ChannelLinker;

  constructor(private readonly deps: CallbackDeps) {
    this.linker = new ChannelLinker(deps);
  }

  /** Throws channel_oauth_state_invalid when the state cannot be trusted (no return URL is known then). */
  async complete(
    platform: Platform,
    query: {
      code?: string;
      state?: string;
      error?: string;
      error_description?: string;
    },
  ): Promise<CallbackOutcome> {
    const now = this.deps.clock.now();
    const row = query.state ? await findConnectState(this.deps.db, query.state) : null;
    if (!row || row.platform !== platform || !(await consumeConnectState(this.deps.db, row, now))) {
      throw new AppError('channel_oauth_state_invalid', {
        message: 'The connect state is unknown, expired, already used or for another platform; request a new connect URL.',
      });
    }
    const fail = (error: string, message: string): CallbackOutcome => ({
      result: 'error',
      platform,
      error,
      message,
      returnUrl: row.return_url,
    });
    if (query.error)
      return fail('access_denied', `The platform answered ${query.error.slice(0, 100)}: the user did not approve the connection.`);
    if (!query.code) return fail('invalid_callback', 'The platform callback carried no code.');
    const provider = this.deps.registry.get(platform);
    let tokens: OAuthTokens;
    let accounts: ProviderAccount[];
    try {
      tokens = await provider.oauth.exchangeCode({
        code: query.code,
        redirectUri: row.redirect_uri,
        codeVerifier: codeVerifierOf(this.deps.encryptor, row),
      });
      accounts = await provider.lookupAccounts({ tokens });
    } catch (err) {
      const category = err instanceof ProviderError ? err.category : 'unknown';
      return fail('channel_oauth_exchange_failed', `The platform refused the code exchange or the account lookup (${category}).`);
    }
    if (accounts.length === 0) return fail('no_accounts', 'The login gives access to no account this service can publish as.');
    const channelAccountId = await this.deps.db.transaction().execute(async (tx) => {
      if (accounts.length === 1) return this.linker.connectOne(tx, row, tokens, accounts[0]!, now);
      return this.linker.waitForChoice(tx, row, tokens, accounts, now);
    });
    if (accounts.length === 1)
      return {
        result: 'connected',
        platform,
        channelAccountId,
        returnUrl: row.return_url,
      };
    return {
      result: 'in_between_steps',
      platform,
      channelAccountId,
      returnUrl: row.return_url,
      choices: await this.choices(row.organization_id, channelAccountId),
    };
  }

  async choices(organizationId: string, channelAccountId: string) {
    const row = await channelsRepository.get(this.deps.db, organizationId, channelAccountId);
    if (!row)
      throw new AppError('channel_account_not_found', {
        message: `No channel account ${channelAccountId} in the principal organization.`,
      });
    return (row.pending_choices ?? []).map(publicChoice);
  }
}
