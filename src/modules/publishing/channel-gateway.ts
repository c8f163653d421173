/**
 * What the publishing engine needs from channels and profiles, through their read ports: channel facts
 * for validation, profile expansion, the provider and call context of a channel, and the channel state
 * change after a platform refused a token. The channels area owns the tables and the usability rules.
 */
import type { ProviderCallContext, SocialProvider } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChannelCallAnswer, ChannelRef, ChannelsReadPort, ChannelsTokenProblemsPort } from '../channels/channels.module.js';
import type { Db, Executor } from '../database.js';
import type { ProfileExpansion, ProfilesReadPort } from '../profiles/profiles.module.js';
import { MicroBatcher } from './micro-batcher.js';
import type { ChannelFacts } from './plan-validation.js';

export type { ProfileExpansion };

export interface ChannelContext {
  provider: SocialProvider;
  ctx: ProviderCallContext;
}

export class ChannelUnavailableError extends Error {
  constructor(
    readonly state: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChannelUnavailableError';
  }
}

export interface ChannelGatewayPorts {
  /** the pool the call contexts are read with (outside any transaction of the caller) */
  db: Db;
  registry: ProviderRegistry;
  channels: ChannelsReadPort;
  tokenProblems: ChannelsTokenProblemsPort;
  profiles: ProfilesReadPort;
}

const unusable = (channelAccountId: string, answer: Extract<ChannelCallAnswer, { ok: false }>) =>
  answer.problem === 'no_token'
    ? `Channel account ${channelAccountId} has no usable access token; connect it again.`
    : `Channel account ${channelAccountId} is ${answer.state}; connect it again before using it.`;

export class ChannelGateway {
  readonly registry: ProviderRegistry;
  /** the claimed targets' channels of one event-loop turn are read together, like their claims */
  private readonly claimed: MicroBatcher<ChannelRef, ChannelCallAnswer>;

  constructor(private readonly ports: ChannelGatewayPorts) {
    this.registry = ports.registry;
    this.claimed = new MicroBatcher(
      (refs) => ports.channels.callContexts(ports.db, refs),
      (ref) => ports.channels.callContext(ports.db, ref.organizationId, ref.channelAccountId),
    );
  }

  facts(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, ChannelFacts>> {
    return this.ports.channels.factsForPublishing(db, organizationId, ids);
  }

  /** The profile's enabled channels that are connected, as plan targets (null when there is no such profile). */
  expandProfile(db: Executor, organizationId: string, profileId: string): Promise<ProfileExpansion | null> {
    return this.ports.profiles.expandForPublishing(db, organizationId, profileId);
  }

  scheduleSettings(db: Executor, organizationId: string, profileId: string): Promise<Record<string, unknown> | null> {
    return this.ports.profiles.scheduleSettings(db, organizationId, profileId);
  }

  /** The default profile of a brand (its saved batch policy applies when no profile is named). */
  defaultProfileId(db: Executor, organizationId: string, brandId: string): Promise<string | null> {
    return this.ports.profiles.defaultProfileId(db, organizationId, brandId);
  }

  /** The call context of a claimed target's channel; a channel that is gone reads as deleted. */
  async forClaimed(organizationId: string, channelAccountId: string): Promise<ChannelContext> {
    const answer = await this.claimed.submit({ organizationId, channelAccountId });
    if (!answer.ok) throw new ChannelUnavailableError(answer.state, unusable(channelAccountId, answer));
    return { provider: answer.provider, ctx: answer.ctx };
  }

  /** Provider and call context of a channel; throws ChannelUnavailableError when it cannot publish. */
  async resolve(organizationId: string, channelAccountId: string, signal?: AbortSignal): Promise<ChannelContext> {
    const answer = await this.ports.channels.callContext(this.ports.db, organizationId, channelAccountId, signal);
    if (!answer.ok)
      throw new ChannelUnavailableError(
        answer.state,
        answer.problem === 'not_found'
          ? `No channel account ${channelAccountId} in the principal organization.`
          : unusable(channelAccountId, answer),
      );
    return { provider: answer.provider, ctx: answer.ctx };
  }

  /** Moves the channel to a state after the platform refused its token (skipped where the channel table forbids it). */
  async markTokenProblem(
    db: Executor,
    organizationId: string,
    channelAccountId: string,
    state: 'refresh_needed' | 'reconnect_required',
    reason: string,
    at: Date,
  ): Promise<void> {
    // called inside the publish engine's transaction: the state change and its webhook event commit together
    await this.ports.tokenProblems.markTokenProblem(db, organizationId, channelAccountId, state, reason, at);
  }
}
