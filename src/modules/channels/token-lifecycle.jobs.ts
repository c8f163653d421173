/**
 * Token lifecycle, run every minute by the worker: channels whose access token expires within
 * SERVICE_CHANNEL_REFRESH_AHEAD_SECONDS move connected -> expiring and are refreshed (-> connected with
 * the new tokens encrypted) or, when the platform refuses the refresh (auth_expired), ->
 * reconnect_required. Transient failures back off and retry; after SERVICE_CHANNEL_REFRESH_MAX_FAILURES
 * in a row the channel shows refresh_needed (still retried); they never disconnect a channel.
 */

import type { Selectable } from 'kysely';
import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import { defineJob } from '../../platform/queue/job-queue.js';
import { type OAuthTokens, ProviderError } from '../../providers/provider.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { Db, Executor } from '../database.js';
import { setChannelState } from './channel-context.js';
import type { ChannelEventSink } from './channel-events.js';
import { channelLifecycleRepository } from './channel-lifecycle.repository.js';
import type { ChannelAccountState } from './channel-states.js';
import { channelsRepository } from './channels.repository.js';
import type { ChannelAccountsTable } from './channels.tables.js';
import { connectStatesRepository } from './connect-states.repository.js';
import type { TokenVault } from './token-vault.js';

export interface LifecycleDeps {
  db: Db;
  config: Config;
  vault: TokenVault;
  registry: ProviderRegistry;
  clock: Clock;
  events?: ChannelEventSink;
}

export interface LifecycleReport {
  refreshed: number;
  reconnectRequired: number;
  retrying: number;
}

const BATCH = 50;

const LIFECYCLE_STATES: readonly ChannelAccountState[] = ['connected', 'expiring', 'refresh_needed'];

type ChannelRowT = Selectable<ChannelAccountsTable>;

export async function runTokenLifecycle(deps: LifecycleDeps): Promise<LifecycleReport> {
  const { db, config } = deps;
  const now = deps.clock.now();
  const report: LifecycleReport = {
    refreshed: 0,
    reconnectRequired: 0,
    retrying: 0,
  };
  await connectStatesRepository.purgeExpired(db, now);
  await channelLifecycleRepository.purgeAbandonedChoices(db, now);
  const horizon = new Date(now.getTime() + config.env.SERVICE_CHANNEL_REFRESH_AHEAD_SECONDS * 1000);
  const due = await channelLifecycleRepository.dueForRefresh(db, LIFECYCLE_STATES, horizon, now, BATCH);
  for (const channel of due) {
    const outcome = await refreshOne(deps, channel, now);
    if (outcome) report[outcome] += 1;
  }
  return report;
}

/**
 * Runs `fn` in a transaction only while the channel still holds the token this run read: a channel
 * disconnected or reconnected during the platform call is left as the user made it.
 */
async function whileUnchanged(deps: LifecycleDeps, channel: ChannelRowT, fn: (tx: Executor) => Promise<void>): Promise<boolean> {
  return deps.db.transaction().execute(async (tx) => {
    const row = await channelsRepository.lock(tx, channel.organization_id, channel.id);
    if (!row || !LIFECYCLE_STATES.includes(row.state) || row.access_token_ref !== channel.access_token_ref) return false;
    await fn(tx);
    return true;
  });
}

async function refreshOne(deps: LifecycleDeps, channel: ChannelRowT, now: Date): Promise<keyof LifecycleReport | null> {
  const { db, config, vault, registry } = deps;
  const org = channel.organization_id;
  const moved = await whileUnchanged(deps, channel, async (tx) => {
    if (channel.state === 'connected') await setChannelState(tx, org, channel.id, 'expiring', 'token_expiring', now);
  });
  if (!moved) return null;
  const provider = registry.get(channel.platform);
  const accessToken = await vault.resolve(db, org, channel.access_token_ref);
  const refreshToken = await vault.resolve(db, org, channel.refresh_token_ref);
  const expired = channel.token_expires_at !== null && new Date(channel.token_expires_at) <= now;
  if (!provider.oauth.supportsRefresh || (!refreshToken && !accessToken)) {
    // nothing can renew this token: once it has expired only a new login helps
    if (!expired) return null;
    const done = await whileUnchanged(deps, channel, (tx) =>
      setChannelState(tx, org, channel.id, 'reconnect_required', 'token_expired', now, deps.events).then(() => undefined),
    );
    return done ? 'reconnectRequired' : null;
  }
  let tokens: OAuthTokens;
  try {
    tokens = await provider.oauth.refresh({
      refreshToken,
      accessToken: accessToken ?? '',
    });
  } catch (err) {
    if (err instanceof ProviderError && err.category === 'auth_expired') {
      const done = await whileUnchanged(deps, channel, async (tx) => {
        await setChannelState(tx, org, channel.id, 'reconnect_required', 'refresh_refused', now, deps.events);
        await channelsRepository.update(tx, org, channel.id, {
          next_refresh_at: null,
          updated_at: now,
        });
      });
      return done ? 'reconnectRequired' : null;
    }
    const failures = channel.refresh_failures + 1;
    const backoffSeconds =
      err instanceof ProviderError && err.retryAfterSeconds ? err.retryAfterSeconds : Math.min(3600, 30 * 2 ** Math.min(failures, 7));
    const done = await whileUnchanged(deps, channel, async (tx) => {
      if (failures >= config.env.SERVICE_CHANNEL_REFRESH_MAX_FAILURES)
        await setChannelState(tx, org, channel.id, 'refresh_needed', 'refresh_failing', now, deps.events);
      await channelsRepository.update(tx, org, channel.id, {
        refresh_failures: failures,
        next_refresh_at: new Date(now.getTime() + backoffSeconds * 1000),
        updated_at: now,
      });
    });
    return done ? 'retrying' : null;
  }
  const done = await whileUnchanged(deps, channel, async (tx) => {
    const accessRef = await vault.store(tx, {
      organizationId: org,
      platform: channel.platform,
      kind: 'access',
      token: tokens.accessToken,
      channelAccountId: channel.id,
      expiresAt: tokens.expiresAt,
      at: now,
    });
    const refreshRef = tokens.refreshToken
      ? await vault.store(tx, {
          organizationId: org,
          platform: channel.platform,
          kind: 'refresh',
          token: tokens.refreshToken,
          channelAccountId: channel.id,
          expiresAt: tokens.refreshTokenExpiresAt,
          at: now,
        })
      : channel.refresh_token_ref;
    await setChannelState(tx, org, channel.id, 'connected', null, now);
    await channelsRepository.update(tx, org, channel.id, {
      access_token_ref: accessRef,
      refresh_token_ref: refreshRef,
      token_expires_at: tokens.expiresAt,
      ...(tokens.scopes.length > 0 ? { scopes: tokens.scopes } : {}),
      refresh_failures: 0,
      next_refresh_at: null,
      updated_at: now,
    });
    await vault.deleteForChannel(tx, org, channel.id, [accessRef, refreshRef]);
  });
  return done ? 'refreshed' : null;
}

const TOKEN_LIFECYCLE_JOB = 'channels.token-lifecycle';

export function tokenLifecycleJob(lifecycle: LifecycleDeps) {
  return defineJob<Record<string, never>>({
    name: TOKEN_LIFECYCLE_JOB,
    cron: '* * * * *',
    queue: { policy: 'singleton', retryLimit: 0, expireInSeconds: 300 },
    async handler() {
      await runTokenLifecycle(lifecycle);
    },
  });
}
