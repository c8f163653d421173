/**
 * One attempt on one target: claim it (conditional move to publishing, version bump), call the
 * adapter, record the outcome. Outcomes by ProviderError category:
 * - transient, rate_limited: back to queued with exponential backoff (at least the platform's
 *   retry-after) until SERVICE_PUBLISH_MAX_ATTEMPTS, then failed (retries_exhausted)
 * - auth_expired: needs_reconnect; the channel goes to refresh_needed (refreshable token) or
 *   reconnect_required
 * - user_content, platform_rejected: failed, never retried
 * - unknown_outcome (and any unexpected error during the platform call): needs_attention, never retried
 * `processing` answers are polled with follow-up jobs until published or failed.
 */
import { sql } from 'kysely';
import type { AppDeps } from '../../app-deps.js';
import { metricsOf } from '../../platform/metrics/index.js';
import { type Platform, ProviderError, type ProviderErrorCategory, type PublishResult } from '../../providers/provider.js';
import type { Executor } from '../database.js';
import { type ChannelContext, type ChannelGateway, ChannelUnavailableError } from './channel-gateway.js';
import type { MediaAccess } from './media-access.js';
import { PLATFORM_RULES } from './platform-rules.js';
import { PublishBatches } from './publish-batches.js';
import { recordJobCompletion, recordTargetOutcome } from './publish-events.js';
import type { PublishLimiter } from './publish-policies.js';
import { ensurePublishQueues, sendCommentJob, sendTargetJob, type TargetJobData } from './publish-queue.js';
import { deriveJobStatus, type TargetState } from './publish-states.js';
import { publishingRepository, type TargetRow } from './publishing.repository.js';
import type { TargetError } from './publishing.tables.js';

export interface EngineSettings {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  leaseMs: number;
  pollMaxMs: number;
}

type Outcome =
  | { kind: 'published'; providerPostId: string; url: string | null }
  | {
      kind: 'processing';
      pollToken: string;
      pollAfterMs: number;
      providerPostId: string | null;
    }
  | { kind: 'retry'; error: TargetError; delayMs: number }
  | {
      kind: 'final';
      state: Extract<TargetState, 'failed' | 'needs_reconnect' | 'needs_attention'>;
      error: TargetError;
      channelState?: 'refresh_needed' | 'reconnect_required';
    };

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

export class PublishEngine {
  constructor(
    private readonly deps: AppDeps,
    private readonly channels: ChannelGateway,
    private readonly media: MediaAccess,
    private readonly limiter: PublishLimiter,
    readonly settings: EngineSettings,
  ) {
    this.batches = new PublishBatches(() => this.deps.database.db, this.deps.events);
  }

  private readonly batches: PublishBatches;

  private get db() {
    return this.deps.database.db;
  }
  private now() {
    return this.deps.clock.now();
  }

  /** Handles one worker job; answers what happened (for logs and tests). */
  async handle(data: TargetJobData): Promise<string> {
    await ensurePublishQueues(this.deps.jobs);
    if (data.step === 'publish' && data.platform && data.channelAccountId) return this.publishHinted(data);
    const row = await publishingRepository.getTarget(this.db, data.targetId);
    if (!row || row.organization_id !== data.organizationId || row.version !== data.version) return 'stale';
    const wanted: TargetState[] = data.step === 'publish' ? ['scheduled', 'queued'] : ['processing'];
    if (!wanted.includes(row.state as TargetState)) return 'stale';
    const policy = PLATFORM_RULES[row.platform as Platform]?.capability.rateLimitPolicy ?? 'standard';
    const slot = await this.limiter.acquire(row.platform, row.channel_account_id, policy, data.step === 'publish');
    if (!slot.ok) {
      await this.defer(row.id, row.organization_id, row.version, [row.state], slot.retryInMs, data.step);
      return 'deferred';
    }
    try {
      return data.step === 'publish' ? await this.publish(row.id, row.version) : await this.poll(row);
    } finally {
      await slot.release().catch(() => undefined);
    }
  }

  /**
   * The hot path: the job names the target's platform and channel, so the slot is taken before any
   * read and the claim is one statement (3 round trips per publish: claim, channel, outcome).
   */
  private async publishHinted(data: TargetJobData): Promise<string> {
    const policy = PLATFORM_RULES[data.platform as Platform]?.capability.rateLimitPolicy ?? 'standard';
    const slot = await this.limiter.acquire(data.platform!, data.channelAccountId!, policy, true);
    if (!slot.ok) {
      await this.defer(data.targetId, data.organizationId, data.version, ['scheduled', 'queued'], slot.retryInMs, 'publish');
      return 'deferred';
    }
    try {
      return await this.publish(data.targetId, data.version, data.organizationId);
    } finally {
      await slot.release().catch(() => undefined);
    }
  }

  /** No slot free: the same version is sent again a little later (not an attempt). */
  private async defer(
    targetId: string,
    organizationId: string,
    version: number,
    states: string[],
    delayMs: number,
    step: TargetJobData['step'],
  ) {
    const at = new Date(this.now().getTime() + delayMs + Math.floor(Math.random() * 250));
    await this.db.transaction().execute(async (tx) => {
      const row = await tx
        .updateTable('publish_targets')
        .set({ next_attempt_at: at })
        .where('id', '=', targetId)
        .where('version', '=', version)
        .where('state', 'in', states)
        .returning(['platform', 'channel_account_id'])
        .executeTakeFirst();
      if (row)
        await sendTargetJob(
          this.deps.jobs,
          tx,
          { targetId, organizationId, version, step, platform: row.platform, channelAccountId: row.channel_account_id },
          at,
        );
    });
  }

  private async publish(targetId: string, version: number, organizationId?: string): Promise<string> {
    const now = this.now();
    // claim the target and mark its job publishing in one statement (batched with the claims of the
    // same turn); answers the job's media and the channel too
    const claimed = await this.batches.claim({
      targetId,
      version,
      organizationId: organizationId ?? null,
      leaseUntil: new Date(now.getTime() + this.settings.leaseMs),
      now,
    });
    if (!claimed) return 'stale';
    let channel: ChannelContext;
    try {
      channel = await this.channels.fromColumns(claimed.organization_id, {
        channelAccountId: claimed.channel_account_id,
        platform: claimed.platform,
        state: claimed.ch_state ?? 'deleted',
        externalAccountId: claimed.ch_external_account_id,
        accessTokenRef: claimed.ch_access_token_ref,
        additionalSettings: claimed.ch_additional_settings,
      });
    } catch (err) {
      return this.record(claimed, this.channelProblem(err));
    }
    let outcome: Outcome;
    try {
      const media = await this.media.forPublish(claimed.organization_id, claimed.job_media, this.db);
      try {
        const result = await channel.provider.publish(channel.ctx, {
          text: claimed.text,
          media,
          settings: claimed.settings as Record<string, unknown>,
          idempotencyKey: claimed.id,
        });
        outcome = this.fromResult(result);
      } catch (err) {
        outcome = this.fromError(err, claimed.attempts, true);
      }
    } catch (err) {
      // before the platform was called (media gone): nothing reached the platform
      outcome = {
        kind: 'final',
        state: 'failed',
        error: targetError('media_unavailable', 'user_content', (err as Error).message, null, this.now()),
      };
    }
    return this.record(claimed, outcome);
  }

  private async poll(row: TargetRow): Promise<string> {
    if (row.lease_until && row.lease_until.getTime() < this.now().getTime()) {
      return this.record(row, {
        kind: 'final',
        state: 'needs_attention',
        error: targetError(
          'processing_timeout',
          'unknown_outcome',
          'The platform was still processing the post when the polling window ended.',
          null,
          this.now(),
        ),
      });
    }
    let channel: ChannelContext;
    try {
      channel = await this.channels.resolve(row.organization_id, row.channel_account_id);
    } catch (err) {
      return this.record(row, this.channelProblem(err));
    }
    let outcome: Outcome;
    try {
      outcome = this.fromResult(await channel.provider.pollPublish(channel.ctx, row.poll_token ?? ''));
    } catch (err) {
      outcome = this.fromError(err, 0, false);
      // polling only reads: a transient failure is polled again rather than counted as an attempt
      if (outcome.kind === 'retry')
        outcome = {
          kind: 'processing',
          pollToken: row.poll_token ?? '',
          pollAfterMs: outcome.delayMs,
          providerPostId: row.provider_post_id,
        };
    }
    return this.record(row, outcome);
  }

  private channelProblem(err: unknown): Outcome {
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

  private fromResult(r: PublishResult): Outcome {
    if (r.status === 'published')
      return {
        kind: 'published',
        providerPostId: r.providerPostId,
        url: r.url,
      };
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
  private fromError(err: unknown, attempts: number, duringCall: boolean): Outcome {
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
            error: {
              ...e,
              code: 'retries_exhausted',
              message: `${err.message} (gave up after ${attempts} attempts)`,
            },
          };
        }
        return {
          kind: 'retry',
          error: e,
          delayMs: this.backoffMs(attempts, err.retryAfterSeconds),
        };
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

  /** Writes an outcome; a scheduled target's publication is measured against its due time. */
  private async record(row: TargetRow, o: Outcome): Promise<string> {
    const state = await this.recordOutcome(row, o);
    if (state === 'published' && row.scheduled_at)
      metricsOf(this.deps).publishLateness(row.platform, (this.now().getTime() - new Date(row.scheduled_at).getTime()) / 1000);
    return state;
  }

  /** Writes an outcome if the target is still the version this attempt claimed. */
  private async recordOutcome(row: TargetRow, o: Outcome): Promise<string> {
    const now = this.now();
    const from = row.state === 'processing' ? ['processing'] : ['publishing'];
    const fcWaiting = !!row.first_comment && row.first_comment_state === 'waiting';
    if ((o.kind === 'published' && !fcWaiting) || (o.kind === 'final' && !o.channelState)) return this.recordSimple(row, o, from, now);
    return this.db.transaction().execute(async (tx) => {
      // the job row lock serializes status refreshes of the job's targets
      await tx.selectFrom('publish_jobs').select('id').where('id', '=', row.job_id).forUpdate().execute();
      const base = tx.updateTable('publish_targets').where('id', '=', row.id).where('version', '=', row.version).where('state', 'in', from);
      let updated: TargetRow | undefined;
      if (o.kind === 'published') {
        updated = await base
          .set({
            state: 'published',
            provider_post_id: o.providerPostId,
            provider_url: o.url,
            published_at: now,
            lease_until: null,
            next_attempt_at: null,
            poll_token: null,
            state_reason: null,
            first_comment_state: row.first_comment ? 'pending' : null,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirst();
        const fc = row.first_comment as { delayMs: number } | null;
        if (updated && fc && row.first_comment_state === 'waiting') {
          await sendCommentJob(
            this.deps.jobs,
            tx,
            { targetId: row.id, organizationId: row.organization_id },
            new Date(now.getTime() + fc.delayMs),
          );
        }
      } else if (o.kind === 'processing') {
        const next = new Date(now.getTime() + Math.max(50, o.pollAfterMs));
        updated = await base
          .set({
            state: 'processing',
            poll_token: o.pollToken,
            provider_post_id: o.providerPostId ?? row.provider_post_id,
            next_attempt_at: next,
            // while processing, the lease is the polling window
            lease_until: row.state === 'processing' ? row.lease_until : new Date(now.getTime() + this.settings.pollMaxMs),
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirst();
        if (updated)
          await sendTargetJob(
            this.deps.jobs,
            tx,
            {
              targetId: row.id,
              organizationId: row.organization_id,
              version: updated.version,
              step: 'poll',
            },
            next,
          );
      } else if (o.kind === 'retry') {
        const next = new Date(now.getTime() + o.delayMs);
        updated = await base
          .set({
            state: 'queued',
            last_error: JSON.stringify(o.error),
            next_attempt_at: next,
            lease_until: null,
            state_reason: `retry ${row.attempts + 1} after ${o.error.category}`,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirst();
        if (updated)
          await sendTargetJob(
            this.deps.jobs,
            tx,
            {
              targetId: row.id,
              organizationId: row.organization_id,
              version: updated.version,
              step: 'publish',
              platform: row.platform,
              channelAccountId: row.channel_account_id,
            },
            next,
          );
      } else {
        updated = await base
          .set({
            state: o.state,
            last_error: JSON.stringify(o.error),
            lease_until: null,
            next_attempt_at: null,
            state_reason: o.error.message.slice(0, 500),
            first_comment_state: row.first_comment ? 'cancelled' : null,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirst();
        if (updated && o.channelState) {
          await this.channels.markTokenProblem(
            tx,
            row.organization_id,
            row.channel_account_id,
            o.channelState,
            `platform refused the token while publishing target ${row.id}`,
            now,
          );
        }
      }
      if (!updated) return 'lost_race';
      await publishingRepository.refreshJobStatus(tx, row.job_id, now);
      await recordTargetOutcome(this.deps.events, tx, row.id);
      return updated.state;
    });
  }

  /**
   * An outcome that needs no follow-up job (published without a first comment, or a final state): one
   * statement updates the target and, when it is the job's only target, the job's status. A job with
   * several targets refreshes its status under the job row lock afterwards.
   */
  private async recordSimple(
    row: TargetRow,
    o: Extract<Outcome, { kind: 'published' | 'final' }>,
    from: string[],
    now: Date,
  ): Promise<string> {
    const state = o.kind === 'published' ? 'published' : o.state;
    if (o.kind === 'published' && from.length === 1 && from[0] === 'publishing') {
      const answer = await this.batches.recordPublished({
        targetId: row.id,
        version: row.version,
        providerPostId: o.providerPostId,
        url: o.url,
        now,
      });
      if (!answer.recorded) return 'lost_race';
      if (!answer.jobUpdated) await this.refreshJobLocked(row.job_id, now);
      return state;
    }
    const set =
      o.kind === 'published'
        ? sql`state = 'published', provider_post_id = ${o.providerPostId}, provider_url = ${o.url}, published_at = ${now},
					lease_until = null, next_attempt_at = null, poll_token = null, state_reason = null, updated_at = ${now}`
        : sql`state = ${o.state}, last_error = ${JSON.stringify(o.error)}::jsonb, lease_until = null, next_attempt_at = null,
					state_reason = ${o.error.message.slice(0, 500)},
					first_comment_state = case when first_comment_state is null then null else 'cancelled' end, updated_at = ${now}`;
    const res = await this.db.transaction().execute(async (tx) => {
      const res = await sql<{ id: string; job_updated: number }>`
			with t as (
				update publish_targets set ${set}
				where id = ${row.id} and version = ${row.version} and state in (${sql.join(from)})
				returning id, job_id
			), j as (
				update publish_jobs set status = ${deriveJobStatus([state])}, updated_at = ${now}
				where id in (select job_id from t)
					and not exists (select 1 from publish_targets o where o.job_id = publish_jobs.id and o.id <> ${row.id})
				returning id
			)
			select t.id, (select count(*) from j)::int as job_updated from t`.execute(tx);
      const done = res.rows[0];
      if (done) await recordTargetOutcome(this.deps.events, tx, row.id, Number(done.job_updated) > 0);
      return res;
    });
    const done = res.rows[0];
    if (!done) return 'lost_race';
    if (Number(done.job_updated) === 0) await this.refreshJobLocked(row.job_id, now);
    return state;
  }

  /** A job with several targets: its status is refreshed under the job row lock. */
  private async refreshJobLocked(jobId: string, now: Date): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const locked = await tx
        .selectFrom('publish_jobs')
        .select(['id', 'organization_id'])
        .where('id', '=', jobId)
        .forUpdate()
        .executeTakeFirst();
      await publishingRepository.refreshJobStatus(tx, jobId, now);
      if (locked) await recordJobCompletion(this.deps.events, tx, locked.organization_id, jobId);
    });
  }
}

export type { Executor };
