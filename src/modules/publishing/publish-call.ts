/**
 * The platform call of one attempt and the mapping of its answer to an Outcome. By ProviderError category:
 * - transient, rate_limited: back to queued with exponential backoff (at least the platform's
 *   retry-after) until SERVICE_PUBLISH_MAX_ATTEMPTS, then failed (retries_exhausted)
 * - auth_expired: needs_reconnect; the channel goes to refresh_needed (refreshable token) or
 *   reconnect_required
 * - user_content, platform_rejected: failed, never retried
 * - unknown_outcome (and any unexpected error during the platform call): needs_attention, never retried
 */

import { ProviderError, type ProviderErrorCategory, type PublishResult } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import type { ChannelContext, ChannelGateway } from './channel-gateway.js';
import { ChannelUnavailableError } from './channel-gateway.js';
import type { MediaAccess } from './media-access.js';
import type { ClaimedRow } from './publish-claim.js';
import type { TargetState } from './publish-states.js';
import type { TargetError } from './publishing.tables.js';

export type Outcome =
  /** `at`: when the platform answered, where it was earlier than the outcome's write (a note's time) */
  | { kind: 'published'; providerPostId: string; url: string | null; at?: Date }
  | {
      kind: 'processing';
      pollToken: string;
      pollAfterMs: number;
      providerPostId: string | null;
    }
  | { kind: 'retry'; error: TargetError; delayMs: number }
  | {
      kind: 'final';
      state: Extract<TargetState, 'failed' | 'needs_reconnect' | 'needs_attention' | 'missed'>;
      error: TargetError;
      channelState?: 'refresh_needed' | 'reconnect_required';
    };

export interface PreparedCall {
  kind: 'ready';
  channel: ChannelContext;
  media: Awaited<ReturnType<MediaAccess['forPublish']>>;
}

export interface RetrySettings {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export function targetError(code: unknown, category: string, message: unknown, providerResponse: unknown, at: Date): TargetError {
  // adapters may hand over numeric platform codes; the stored error is always strings
  return {
    code: String(code),
    category,
    message: String(message ?? ''),
    providerResponse: providerResponse ?? null,
    at: at.toISOString(),
  };
}

export class PublishCall {
  constructor(
    private readonly channels: ChannelGateway,
    private readonly media: MediaAccess,
    private readonly settings: RetrySettings,
    private readonly now: () => Date,
  ) {}

  /** Resolves the claimed target's channel and media, calls the platform, answers the outcome. */
  async publish(claimed: ClaimedRow, db: Executor): Promise<Outcome> {
    const prepared = await this.prepare(claimed, db);
    return prepared.kind === 'ready' ? this.call(claimed, prepared) : prepared.outcome;
  }

  /**
   * The channel's call context and the media of a claimed target, read before the platform call (the
   * engine reads them ahead of its call permit); an outcome instead when the platform cannot be called.
   */
  async prepare(claimed: ClaimedRow, db: Executor): Promise<PreparedCall | { kind: 'outcome'; outcome: Outcome }> {
    let channel: ChannelContext;
    try {
      channel = await this.channels.forClaimed(claimed.organization_id, claimed.channel_account_id);
    } catch (err) {
      return { kind: 'outcome', outcome: this.channelProblem(err) };
    }
    try {
      const media = await this.media.forPublish(claimed.organization_id, claimed.job_media, db);
      return { kind: 'ready', channel, media };
    } catch (err) {
      // before the platform was called (media gone): nothing reached the platform
      return {
        kind: 'outcome',
        outcome: {
          kind: 'final',
          state: 'failed',
          error: targetError('media_unavailable', 'user_content', (err as Error).message, null, this.now()),
        },
      };
    }
  }

  /** The platform call of a prepared target; answers the outcome. */
  async call(claimed: ClaimedRow, prepared: PreparedCall): Promise<Outcome> {
    try {
      const result = await prepared.channel.provider.publish(prepared.channel.ctx, {
        text: claimed.text,
        media: prepared.media,
        settings: claimed.settings as Record<string, unknown>,
        idempotencyKey: claimed.id,
      });
      return this.fromResult(result);
    } catch (err) {
      return this.fromError(err, claimed.attempts, true);
    }
  }

  channelProblem(err: unknown): Outcome {
    const at = this.now();
    if (err instanceof ChannelUnavailableError) {
      return {
        kind: 'final',
        state: 'needs_reconnect',
        error: targetError('channel_unavailable', 'auth_expired', err.message, null, at),
      };
    }
    return this.fromError(err, Number.MAX_SAFE_INTEGER, false);
  }

  fromResult(r: PublishResult): Outcome {
    if (r.status === 'published') return { kind: 'published', providerPostId: r.providerPostId, url: r.url };
    return {
      kind: 'processing',
      pollToken: r.pollToken,
      pollAfterMs: r.pollAfterMs,
      providerPostId: r.providerPostId ?? null,
    };
  }

  private backoffMs(attempts: number, retryAfterSeconds: number | null): number {
    const exp = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** Math.max(0, attempts - 1));
    const jittered = exp * (0.8 + Math.random() * 0.4);
    return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
  }

  /** Maps a failure of the platform call to an outcome. `duringCall`: the request may have been sent. */
  fromError(err: unknown, attempts: number, duringCall: boolean): Outcome {
    const at = this.now();
    if (!(err instanceof ProviderError)) {
      const category: ProviderErrorCategory = duringCall ? 'unknown_outcome' : 'transient';
      const e = targetError('publish_error', category, (err as Error)?.message ?? String(err), null, at);
      return duringCall ? { kind: 'final', state: 'needs_attention', error: e } : { kind: 'final', state: 'failed', error: e };
    }
    const e = targetError(err.providerCode ?? err.category, err.category, err.message, err.providerResponse, at);
    switch (err.category) {
      case 'transient':
      case 'rate_limited':
        if (attempts >= this.settings.maxAttempts) {
          return {
            kind: 'final',
            state: 'failed',
            error: { ...e, code: 'retries_exhausted', message: `${err.message} (gave up after ${attempts} attempts)` },
          };
        }
        return { kind: 'retry', error: e, delayMs: this.backoffMs(attempts, err.retryAfterSeconds) };
      case 'auth_expired': {
        const refreshable = this.channels.registry.get(err.platform).oauth.supportsRefresh;
        return {
          kind: 'final',
          state: 'needs_reconnect',
          error: e,
          channelState: refreshable ? 'refresh_needed' : 'reconnect_required',
        };
      }
      case 'unknown_outcome':
        return { kind: 'final', state: 'needs_attention', error: e };
      default:
        return { kind: 'final', state: 'failed', error: e };
    }
  }
}
