/**
 * What other areas may ask of channel accounts: facts of some channels, the provider and call context
 * of one (its token decrypted), and the state change after a platform refused its token. Every call
 * takes the caller's executor, so a read or change made inside the caller's transaction stays in it.
 */
import type { EventOutbox } from '../../platform/events/outbox.js';
import type { Platform, ProviderCallContext, SocialProvider } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { Executor } from '../database.js';
import { setChannelState } from './channel-context.js';
import { canTransition, USABLE_STATES } from './channel-states.js';
import { channelsRepository } from './channels.repository.js';
import type { TokenVault } from './token-vault.js';

export interface ChannelFactsForPublishing {
  channelAccountId: string;
  platform: string;
  state: string;
  /** the state holds a usable token: the platform may be called */
  usable: boolean;
  brandId: string | null;
  displayName: string | null;
}

/** A channel's provider and call context, or why there is none (`state` 'deleted' when no such channel). */
export type ChannelCallAnswer =
  | { ok: true; provider: SocialProvider; ctx: ProviderCallContext }
  | { ok: false; problem: 'not_found' | 'not_usable' | 'no_token'; state: string };

export interface ChannelRef {
  organizationId: string;
  channelAccountId: string;
}

export interface ChannelsReadPort {
  /** The organization's channels among `ids` (unknown ids are absent). */
  factsForPublishing(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, ChannelFactsForPublishing>>;
  /** The provider and call context of a channel in a usable state with a resolvable token. */
  callContext(db: Executor, organizationId: string, channelAccountId: string, signal?: AbortSignal): Promise<ChannelCallAnswer>;
  /** callContext of several channels (of any organizations) in one read; the answers in the order asked. */
  callContexts(db: Executor, channels: ReadonlyArray<ChannelRef>): Promise<ChannelCallAnswer[]>;
  /**
   * Moves a channel to a token-problem state after the platform refused its token, with its webhook
   * event, in the caller's transaction; skipped where the transition table forbids it.
   */
  markTokenProblem(
    db: Executor,
    organizationId: string,
    channelAccountId: string,
    state: 'refresh_needed' | 'reconnect_required',
    reason: string,
    at: Date,
  ): Promise<void>;
}

export function channelsReadPort(deps: { registry: ProviderRegistry; vault: TokenVault; events: EventOutbox }): ChannelsReadPort {
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

    async markTokenProblem(db, organizationId, channelAccountId, state, reason, at) {
      const current = await channelsRepository.stateOf(db, organizationId, channelAccountId);
      if (!current || !canTransition(current, state)) return;
      await setChannelState(db, organizationId, channelAccountId, state, reason, at, deps.events);
    },
  };
}
