/** POST /v1/channel-accounts/{id}/select: completes an in_between_steps channel with the chosen account. */

import { AppError } from '../../platform/errors.js';
import type { OAuthTokens, ProviderAccount } from '../../providers/provider.js';
import { recordChannelStateEvent } from './channel-events.js';
import type { CallbackDeps } from './channel-linker.js';
import { ChannelLinker } from './channel-linker.js';
import { channelsRepository } from './channels.repository.js';
import type { ConnectStateRow } from './connect-states.js';

export class ChannelChoiceService {
  private readonly linker: ChannelLinker;

  constructor(private readonly deps: CallbackDeps) {
    this.linker = new ChannelLinker(deps);
  }

  /** Completes an in_between_steps channel with the chosen account; answers the connected channel's id. */
  async select(organizationId: string, channelAccountId: string, externalAccountId: string): Promise<string> {
    const now = this.deps.clock.now();
    const { vault } = this.deps;
    return this.deps.db.transaction().execute(async (tx) => {
      const pending = await channelsRepository.lock(tx, organizationId, channelAccountId);
      if (!pending)
        throw new AppError('channel_account_not_found', {
          message: `No channel account ${channelAccountId} in the principal organization.`,
        });
      if (pending.state !== 'in_between_steps' || !pending.pending_choices) {
        throw new AppError('channel_account_invalid_transition', {
          message: `Channel account ${channelAccountId} is ${pending.state}, not waiting for an account choice.`,
        });
      }
      const choice = pending.pending_choices.find((c) => c.externalAccountId === externalAccountId);
      if (!choice) {
        throw new AppError('invalid_public_channel_account_request', {
          message: `externalAccountId must be one of ${pending.pending_choices.map((c) => c.externalAccountId).join(', ')}.`,
          fields: [{ path: ['externalAccountId'], source: 'body' }],
        });
      }
      const accessRef = choice.accessTokenRef ?? pending.access_token_ref!;
      const refreshRef = choice.accessTokenRef ? null : pending.refresh_token_ref;
      const expiresAt = choice.accessTokenRef ? null : pending.token_expires_at;
      const tokens: OAuthTokens = {
        accessToken: '',
        refreshToken: null,
        expiresAt,
        refreshTokenExpiresAt: null,
        scopes: pending.scopes,
        extra: {},
      };
      const row = {
        organization_id: organizationId,
        platform: pending.platform,
        brand_id: pending.brand_id,
      } as ConnectStateRow;
      const existing = await channelsRepository.lockByExternal(tx, organizationId, pending.platform, externalAccountId);
      if (existing) {
        // a reconnect of a known account: it keeps its id; the placeholder goes away with its other secrets
        await vault.attach(tx, organizationId, existing.id, [accessRef, refreshRef]);
        await channelsRepository.delete(tx, organizationId, pending.id);
      }
      const account: ProviderAccount = {
        externalAccountId,
        displayName: choice.displayName,
        handle: choice.handle,
        avatarUrl: choice.avatarUrl,
      };
      if (existing)
        return this.linker.connectOne(tx, row, tokens, account, now, {
          accessRef,
          refreshRef,
          expiresAt,
        });
      await channelsRepository.update(tx, organizationId, pending.id, {
        external_account_id: externalAccountId,
        display_name: choice.displayName,
        handle: choice.handle,
        state: 'connected',
        state_reason: null,
        access_token_ref: accessRef,
        refresh_token_ref: refreshRef,
        token_expires_at: expiresAt,
        pending_choices: null,
        updated_at: now,
      });
      await vault.deleteForChannel(tx, organizationId, pending.id, [accessRef, refreshRef]);
      await recordChannelStateEvent(this.deps.events, tx, organizationId, pending.id, pending.state);
      return pending.id;
    });
  }
}
