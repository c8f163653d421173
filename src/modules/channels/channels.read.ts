/**
 * What other areas may ask of channel accounts: facts of some channels, the provider and call context
 * of one (its token decrypted), and the state change after a platform refused its token. Every call
 * takes the caller's executor, so a read or change made inside the caller's transaction stays in it.
 */
import type { Platform, ProviderCallContext, SocialProvider } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { Db, Executor } from '../database.js';
import { resolveChannelContext, setChannelState } from './channel-context.js';
import type { ChannelEventSink } from './channel-events.js';
import { type ChannelAccountState, canTransition, USABLE_STATES } from './channel-states.js';
import { channelsRepository } from './channels.repository.js';
import type { TokenVault } from './token-vault.js';

export interface ChannelFactsForPublishing {
  channelAccountId: string;
  platform: string;
  state: string;
  /** the state holds a usable token: the platform may be called */
  usable: boolean;
  brandId: string | null;
  displayName: string;
  handle: string | null;
}

/** A channel's provider and call context, or why there is none (`state` 'deleted' when no such channel). */
export type ChannelCallAnswer =
  | { ok: true; provider: SocialProvider; ctx: ProviderCallContext }
  | { ok: false; problem: 'not_found' | 'not_usable' | 'no_token'; state: string };

export interface ChannelRef {
  organizationId: string;
  channelAccountId: string;
}

/** A channel in a usable state, its platform's adapter and a call context carrying the decrypted token. */
interface UsableChannel {
  channel: ChannelFactsForPublishing;
  provider: SocialProvider;
  ctx: ProviderCallContext;
}

/** A channel of some organization, found by platform and account rather than by id. */
interface ChannelOfAccount {
  organizationId: string;
  channelAccountId: string;
  platform: Platform;
  state: ChannelAccountState;
  externalAccountId: string;
}

export interface ChannelsReadPort {
  /** Whether a channel in this state holds a usable token (the platform may be called). */
  isUsable(state: string): boolean;
  /** The organization's channels among `ids` (unknown ids are absent). */
  factsForPublishing(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, ChannelFactsForPublishing>>;
  /** The provider and call context of a channel in a usable state with a resolvable token. */
  callContext(db: Executor, organizationId: string, channelAccountId: string, signal?: AbortSignal): Promise<ChannelCallAnswer>;
  /** callContext of several channels (of any organizations) in one read; the answers in the order asked. */
  callContexts(db: Executor, channels: ReadonlyArray<ChannelRef>): Promise<ChannelCallAnswer[]>;
  /**
   * callContext for a request: the channel's facts, provider and call context, or the API's answer why
   * not (404 channel_account_not_found for another organization's channel; 409
   * channel_account_not_connected when it is not usable or its token cannot be resolved).
   */
  usableChannel(db: Db, organizationId: string, channelAccountId: string, signal?: AbortSignal): Promise<UsableChannel>;
  /** Channels of any organization on `platforms` with this platform account id, deleted ones left out, by id. */
  ofExternalAccount(db: Executor, platforms: readonly Platform[], externalAccountId: string): Promise<ChannelOfAccount[]>;
  /** Channels of any organization on `platform` in a usable state, by id. */
  usableOfPlatform(db: Executor, platform: Platform): Promise<ChannelOfAccount[]>;
  /**
   * Moves a channel to a token-problem state after the platform refused its token, with its webhook
   * event (unless `event` is false), in the caller's transaction; skipped where the transition table
   * forbids it. Answers whether the channel was moved.
   */
  markTokenProblem(
    db: Executor,
    organizationId: string,
    channelAccountId: string,
    state: 'refresh_needed' | 'reconnect_required',
    reason: string,
    at: Date,
    opts?: { event?: boolean },
  ): Promise<boolean>;
}

export function channelsReadPort(deps: { registry: ProviderRegistry; vault: TokenVault; events: ChannelEventSink }): ChannelsReadPort {
  const usable = (state: string) => (USABLE_STATES as readonly string[]).includes(state);
  type CallRow = Awaited<ReturnType<typeof channelsRepository.callColumns>>[number];
  const answer = (row: CallRow | undefined, organizationId: string, signal?: AbortSignal): ChannelCallAnswer => {
    if (!row) return { ok: false, problem: 'not_found', state: 'deleted' };
    if (!usable(row.state)) return { ok: false, problem: 'not_usable', state: row.state };
    const accessToken = deps.vault.open(organizationId, row.access_token_ref, row.token_ciphertext);
    if (!accessToken) return { ok: false, problem: 'no_token', state: row.state };
    return {
      ok: true,
      provider: deps.registry.get(row.platform as Platform),
      ctx: {
        accessToken,
        externalAccountId: row.external_account_id,
        channelSettings: row.additional_settings ?? {},
        ...(signal ? { signal } : {}),
      },
    };
  };
  return {
    isUsable: usable,

    async factsForPublishing(db, organizationId, ids) {
      const out = new Map<string, ChannelFactsForPublishing>();
      for (const r of await channelsRepository.factsOf(db, organizationId, ids))
        out.set(r.id, {
          channelAccountId: r.id,
          platform: r.platform,
          state: r.state,
          usable: usable(r.state),
          brandId: r.brand_id,
          displayName: r.display_name,
          handle: r.handle,
        });
      return out;
    },

    async callContext(db, organizationId, channelAccountId, signal) {
      const rows = await channelsRepository.callColumns(db, [{ organizationId, channelAccountId }]);
      return answer(rows[0], organizationId, signal);
    },

    async callContexts(db, channels) {
      const rows = await channelsRepository.callColumns(db, channels);
      const byKey = new Map(rows.map((r) => [`${r.organization_id}/${r.id}`, r]));
      return channels.map((c) => answer(byKey.get(`${c.organizationId}/${c.channelAccountId}`), c.organizationId));
    },

    async usableChannel(db, organizationId, channelAccountId, signal) {
      const { channel, provider, ctx } = await resolveChannelContext(
        { db, vault: deps.vault, registry: deps.registry },
        organizationId,
        channelAccountId,
        signal,
      );
      return {
        channel: {
          channelAccountId: channel.id,
          platform: channel.platform,
          state: channel.state,
          usable: true,
          brandId: channel.brand_id,
          displayName: channel.display_name,
          handle: channel.handle,
        },
        provider,
        ctx,
      };
    },

    async ofExternalAccount(db, platforms, externalAccountId) {
      const rows = await channelsRepository.byExternalAccountAcrossOrganizations(db, platforms, externalAccountId);
      return rows.map((r) => ({
        organizationId: r.organization_id,
        channelAccountId: r.id,
        platform: r.platform,
        state: r.state,
        externalAccountId,
      }));
    },

    async usableOfPlatform(db, platform) {
      const rows = await channelsRepository.inStatesAcrossOrganizations(db, platform, USABLE_STATES);
      return rows.map((r) => ({
        organizationId: r.organization_id,
        channelAccountId: r.id,
        platform,
        state: r.state,
        externalAccountId: r.external_account_id,
      }));
    },

    async markTokenProblem(db, organizationId, channelAccountId, state, reason, at, opts) {
      const current = await channelsRepository.stateOf(db, organizationId, channelAccountId);
      if (!current || !canTransition(current, state)) return false;
      await setChannelState(db, organizationId, channelAccountId, state, reason, at, opts?.event === false ? undefined : deps.events);
      return true;
    },
  };
}
