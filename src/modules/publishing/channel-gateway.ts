/**
 * What the publishing engine needs from channels and profiles: channel facts for validation, profile
 * expansion, the provider and call context of a channel, and channel state changes. Reads go to the
 * channel tables directly (read-only); token handling and state changes go through the channels module.
 */
import type { AppDeps } from '../../app-deps.js';
import { isAppError } from '../../platform/errors.js';
import type { Platform, ProviderCallContext, SocialProvider } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { resolveChannelContext, setChannelState } from '../channels/channel-context.js';
import { canTransition as canChannelTransition, USABLE_STATES } from '../channels/channel-states.js';
import type { TokenVault } from '../channels/token-vault.js';
import type { Executor } from '../database.js';
import type { ChannelFacts, PlanTargetInput } from './plan-validation.js';

export interface ProfileExpansion {
  profileId: string;
  brandId: string;
  targets: PlanTargetInput[];
  scheduleSettings: Record<string, unknown>;
}

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

export class ChannelGateway {
  constructor(
    private readonly deps: AppDeps,
    readonly registry: ProviderRegistry,
    private readonly vault: TokenVault,
  ) {}

  async facts(db: Executor, organizationId: string, ids: string[]): Promise<Map<string, ChannelFacts>> {
    const out = new Map<string, ChannelFacts>();
    if (ids.length === 0) return out;
    const rows = await db
      .selectFrom('channel_accounts')
      .select(['id', 'platform', 'state', 'brand_id', 'display_name'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', [...new Set(ids)])
      .execute();
    for (const r of rows)
      out.set(r.id, {
        channelAccountId: r.id,
        platform: r.platform,
        state: r.state,
        brandId: r.brand_id,
        displayName: r.display_name,
      });
    return out;
  }

  /** The profile's enabled channels that are connected, as plan targets (null when there is no such profile). */
  async expandProfile(db: Executor, organizationId: string, profileId: string): Promise<ProfileExpansion | null> {
    const profile = await db
      .selectFrom('publishing_profiles')
      .select(['id', 'brand_id', 'schedule_settings'])
      .where('organization_id', '=', organizationId)
      .where('id', '=', profileId)
      .executeTakeFirst();
    if (!profile) return null;
    const rows = await db
      .selectFrom('publishing_profile_channels as pc')
      .innerJoin('channel_accounts as c', (j) =>
        j.onRef('c.id', '=', 'pc.channel_account_id').onRef('c.organization_id', '=', 'pc.organization_id'),
      )
      .select(['pc.channel_account_id', 'pc.platform', 'pc.settings', 'pc.position'])
      .where('pc.organization_id', '=', organizationId)
      .where('pc.profile_id', '=', profileId)
      .where('pc.enabled', '=', true)
      .where('c.state', 'in', [...USABLE_STATES])
      .orderBy('pc.position')
      .orderBy('pc.id')
      .execute();
    return {
      profileId: profile.id,
      brandId: profile.brand_id,
      scheduleSettings: (profile.schedule_settings ?? {}) as Record<string, unknown>,
      targets: rows.map((r) => ({
        platform: r.platform,
        channelAccountId: r.channel_account_id,
        ...(r.settings && Object.keys(r.settings).length > 0 ? { settings: r.settings as Record<string, unknown> } : {}),
      })),
    };
  }

  async scheduleSettings(db: Executor, organizationId: string, profileId: string): Promise<Record<string, unknown> | null> {
    const row = await db
      .selectFrom('publishing_profiles')
      .select('schedule_settings')
      .where('organization_id', '=', organizationId)
      .where('id', '=', profileId)
      .executeTakeFirst();
    return row ? ((row.schedule_settings ?? {}) as Record<string, unknown>) : null;
  }

  /** The default profile of a brand (its saved batch policy applies when no profile is named). */
  async defaultProfileId(db: Executor, organizationId: string, brandId: string): Promise<string | null> {
    const row = await db
      .selectFrom('publishing_profiles')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('brand_id', '=', brandId)
      .orderBy('is_default', 'desc')
      .orderBy('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  /**
   * The same context as resolve(), from channel columns the worker already read with its claim
   * (saves a round trip per publish); the usability rules are the channels module's.
   */
  async fromColumns(
    organizationId: string,
    c: {
      channelAccountId: string;
      platform: string;
      state: string;
      externalAccountId: string;
      accessTokenRef: string | null;
      additionalSettings: Record<string, unknown> | null;
    },
  ): Promise<ChannelContext> {
    if (!(USABLE_STATES as readonly string[]).includes(c.state))
      throw new ChannelUnavailableError(c.state, `Channel account ${c.channelAccountId} is ${c.state}; connect it again before using it.`);
    const token = await this.vault.resolve(this.deps.database.db, organizationId, c.accessTokenRef);
    if (!token)
      throw new ChannelUnavailableError(c.state, `Channel account ${c.channelAccountId} has no usable access token; connect it again.`);
    return {
      provider: this.registry.get(c.platform as Platform),
      ctx: { accessToken: token, externalAccountId: c.externalAccountId, channelSettings: c.additionalSettings ?? {} },
    };
  }

  /** Provider and call context of a channel; throws ChannelUnavailableError when it cannot publish. */
  async resolve(organizationId: string, channelAccountId: string, signal?: AbortSignal): Promise<ChannelContext> {
    try {
      const r = await resolveChannelContext(
        {
          db: this.deps.database.db,
          vault: this.vault,
          registry: this.registry,
        },
        organizationId,
        channelAccountId,
        signal,
      );
      return { provider: r.provider, ctx: r.ctx };
    } catch (err) {
      if (isAppError(err) && (err.code === 'channel_account_not_found' || err.code === 'channel_account_not_connected')) {
        const state = typeof err.details?.state === 'string' ? err.details.state : 'deleted';
        throw new ChannelUnavailableError(state, err.message);
      }
      throw err;
    }
  }

  /** Moves the channel to a state after the platform refused its token (skipped where the channel table forbids it). */
  async markTokenProblem(
    db: Executor,
    organizationId: string,
    channelAccountId: string,
    state: 'refresh_needed' | 'reconnect_required',
    reason: string,
    at: Date,
  ) {
    const row = await db
      .selectFrom('channel_accounts')
      .select('state')
      .where('organization_id', '=', organizationId)
      .where('id', '=', channelAccountId)
      .executeTakeFirst();
    if (!row || !canChannelTransition(row.state, state)) return;
    // called inside the publish engine's transaction: the state change and its webhook event commit together
    await setChannelState(db, organizationId, channelAccountId, state, reason, at, this.deps.events);
  }
}
