/**
 * The reconciliation sweep (cron every minute over every organization, and POST
 * /v1/internal/publish-queue/reconcile by a signed-in admin over their organization). Nothing
 * due is silently lost, even after a worker crash:
 * - a target in publishing whose worker noted the platform's answer (during a burst) and stopped before
 *   writing the outcome: published from the note, once the note is older than the longest hold plus a
 *   minute, or at the end of the lease (no platform call, no lookup);
 * - a target in publishing past its lease: the account's recent posts on the platform say whether the
 *   post landed (published) or not: then it is queued again (its attempt counted, a new worker job of the
 *   claimed version) while it is within its job's lateness limit and the attempt budget
 *   (SERVICE_PUBLISH_MAX_ATTEMPTS), else missed (too late) or failed (attempts spent); where the
 *   platform cannot tell, it is flagged needs_attention (never retried blindly);
 * - a scheduled/queued target due for longer than the grace period with no pending worker job of its
 *   version (none waiting, none active within the lease): re-queued under a new version, so a late
 *   original job is skipped;
 * - a processing target whose poll job is gone: polled again (polling only reads);
 * - a first comment stuck posting past the lease: needs_attention; pending with no job: re-queued.
 */
import type { QueueInspector } from '../../platform/queue/queue-inspector.js';
import { type ListingPages, ProviderError } from '../../providers/provider.js';
import type { ChannelGateway } from './channel-gateway.js';
import { type Outcome, targetError } from './publish-call.js';
import { missedOutcome } from './publish-lateness.js';
import { type OutcomeRecorder, outcomeHoldLimitMs } from './publish-outcomes.js';
import { ensurePublishQueues, sendCommentJob, sendTargetJob } from './publish-queue.js';
import { TRANSITIONS } from './publish-states.js';
import type { PublishingDeps } from './publishing.deps.js';
import { publishingRepository, type TargetRow } from './publishing.repository.js';
import { reconcileRepository } from './reconcile.repository.js';

const BATCH = 500;
/**
 * A lookup that failed for a passing reason (timeout, rate limit, 5xx) is tried again by the next sweeps for
 * this long past the target's lease, before the target is flagged: one failed listing call must not leave a
 * post that never landed needing a person.
 */
const LOOKUP_RETRY_MS = 15 * 60_000;
/** platform lookups of stuck targets run this many at once */
const LOOKUPS_AT_ONCE = 8;
/**
 * A post we recorded published this long before an attempt's claim was made before the attempt's call
 * (`postedBefore` of the lookup): the margin covers the clocks of our own machines (the recording worker's
 * and the claiming worker's), not the platform's.
 */
const POSTED_BEFORE_MARGIN_MS = 10_000;
/** a note this much older than the longest hold was left by a worker that stopped (its own write is due sooner) */
const NOTE_GRACE_MS = 60_000;

/** The outcome a worker noted on its target before it stopped: the platform's answer, as it was. */
function notedOutcome(row: TargetRow): Outcome | null {
  if (!row.posted_post_id) return null;
  return { kind: 'published', providerPostId: row.posted_post_id, url: row.posted_url, ...(row.posted_at ? { at: row.posted_at } : {}) };
}

export interface ReconcileResult {
  requeuedCount: number;
  /** stuck in publishing: found on the platform */
  publishedCount: number;
  /** stuck in publishing, never landed (the account's posts show it) and its attempts spent */
  failedCount: number;
  /** stuck in publishing, never landed: queued again */
  retriedCount: number;
  /** stuck in publishing, never landed and past its lateness limit: missed */
  missedCount: number;
  /** stuck in publishing and the platform cannot tell: needs_attention */
  flaggedCount: number;
  /** stuck in publishing, the lookup failed for a passing reason: left for the next sweep */
  lookupsDeferredCount: number;
  pollsRequeuedCount: number;
  commentsFlaggedCount: number;
  commentsRequeuedCount: number;
}

/** What the lookups of one sweep share. */
interface SweepLookups {
  listingPages: ListingPages;
  /** by channel account: each post a lookup found, to the target it was found for */
  found: Map<string, Map<string, string>>;
}

export class ReconcileService {
  constructor(
    private readonly deps: PublishingDeps,
    private readonly channels: ChannelGateway,
    private readonly outcomes: OutcomeRecorder,
    /** whether a target's worker job is still waiting or running (pg-boss's jobs) */
    private readonly queue: QueueInspector,
    private readonly settings: { leaseMs: number; graceMs: number; maxAttempts: number },
  ) {}

  /**
   * Whether the post of a target whose worker died mid-publish landed: the account's recent posts
   * through the adapter's findRecentPost (text and the attempt's window), excluding posts other
   * targets of the channel hold. Published (with the post's id and permalink), failed (the listing
   * covers the window and has no such post) or needs_attention (no listing, several matches, an error).
   */
  private async lookUp(row: TargetRow, now: Date, sweep: SweepLookups): Promise<Outcome | 'try_later'> {
    const job = await publishingRepository.getJob(this.deps.database.db, row.organization_id, row.job_id);
    const unknown = (why: string): Outcome => ({
      kind: 'final',
      state: 'needs_attention',
      error: targetError('lease_expired', 'unknown_outcome', `The worker stopped while publishing; ${why}`, null, now),
    });
    try {
      const channel = await this.channels.resolve(row.organization_id, row.channel_account_id);
      if (!channel.provider.findRecentPost) return unknown(`${row.platform} offers no list of the account's posts to check.`);
      const until = row.lease_until ?? now;
      const since = new Date(until.getTime() - this.settings.leaseMs);
      const held = await reconcileRepository.heldPosts(this.deps.database.db, row.organization_id, {
        channelAccountId: row.channel_account_id,
        exceptTargetId: row.id,
        since: new Date(since.getTime() - 86_400_000),
      });
      const claimedAt = since.getTime() - POSTED_BEFORE_MARGIN_MS;
      const foundOnChannel = sweep.found.get(row.channel_account_id) ?? new Map<string, string>();
      sweep.found.set(row.channel_account_id, foundOnChannel);
      const found = await channel.provider.findRecentPost(channel.ctx, {
        text: row.text,
        since,
        until,
        // with the posts this sweep's other lookups found (not yet recorded when this one began)
        excludeIds: [...held.map((p) => p.postId), ...foundOnChannel.keys()],
        postedBefore: new Set(held.filter((p) => p.publishedAt !== null && p.publishedAt.getTime() < claimedAt).map((p) => p.postId)),
        mediaKinds: (job?.media ?? []).map((m) => m.kind),
        settings: row.settings as Record<string, unknown>,
        listingPages: sweep.listingPages,
      });
      if (found.status === 'found') {
        // two lookups of one sweep that ran at once found the same post: one takes it, the other asks again
        // at the next sweep (when the post is recorded and excluded)
        const holder = foundOnChannel.get(found.providerPostId);
        if (holder !== undefined && holder !== row.id) return 'try_later';
        foundOnChannel.set(found.providerPostId, row.id);
        return { kind: 'published', providerPostId: found.providerPostId, url: found.url };
      }
      if (found.status === 'absent') return this.notLanded(row, job?.max_lateness_minutes ?? null, now);
      return unknown(`the platform may or may not have the post (${found.reason}).`);
    } catch (err) {
      const passing = err instanceof ProviderError && err.retryable;
      const leaseEnded = (row.lease_until ?? now).getTime();
      if (passing && now.getTime() - leaseEnded < LOOKUP_RETRY_MS) return 'try_later';
      return unknown(`the platform may or may not have the post (the lookup failed: ${(err as Error).message}).`);
    }
  }

  /**
   * A post the crash left unpublished: queued again at once while it is within its lateness limit and
   * attempt budget; otherwise missed (too late) or failed (its attempts, the crashed one counted, are spent).
   */
  private notLanded(row: TargetRow, maxLatenessMinutes: number | null, now: Date): Outcome {
    const missed = missedOutcome(row, maxLatenessMinutes, now);
    if (missed) return missed;
    const why = `The worker stopped while publishing; the account's posts on ${row.platform} show no such post`;
    if (row.attempts >= this.settings.maxAttempts)
      return {
        kind: 'final',
        state: 'failed',
        error: targetError(
          'not_published',
          'transient',
          `${why}, and its ${row.attempts} attempts are spent (SERVICE_PUBLISH_MAX_ATTEMPTS); queue it again to retry.`,
          null,
          now,
        ),
      };
    return { kind: 'retry', delayMs: 0, error: targetError('not_published', 'transient', `${why}: queued again.`, null, now) };
  }

  /** The whole sweep; with `organizationId`, only that organization's targets (an admin's dashboard call). */
  async run(organizationId?: string): Promise<ReconcileResult> {
    await ensurePublishQueues(this.deps.jobs);
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const result: ReconcileResult = {
      requeuedCount: 0,
      publishedCount: 0,
      failedCount: 0,
      retriedCount: 0,
      missedCount: 0,
      flaggedCount: 0,
      lookupsDeferredCount: 0,
      pollsRequeuedCount: 0,
      commentsFlaggedCount: 0,
      commentsRequeuedCount: 0,
    };

    // 1. stuck in publishing with a note of its post: written from the note (its worker stopped mid-burst)
    const notedBefore = new Date(now.getTime() - outcomeHoldLimitMs(this.settings.leaseMs) - NOTE_GRACE_MS);
    for (const row of await reconcileRepository.notedBefore(db, organizationId, notedBefore, BATCH)) {
      const written = await this.outcomes.record(row, notedOutcome(row)!);
      if (written === TRANSITIONS.published.to) result.publishedCount += 1;
    }

    // 2. stuck in publishing: looked up on the platform (unless noted), flagged only where it cannot tell
    const overdue = await reconcileRepository.pastLease(db, organizationId, now, BATCH);
    // the account listings' pages this sweep fetched and the posts its lookups found, shared by its lookups
    const sweep: SweepLookups = { listingPages: new Map(), found: new Map() };
    for (let i = 0; i < overdue.length; i += LOOKUPS_AT_ONCE) {
      await Promise.all(
        overdue.slice(i, i + LOOKUPS_AT_ONCE).map(async (row) => {
          const outcome = notedOutcome(row) ?? (await this.lookUp(row, now, sweep));
          if (outcome === 'try_later') {
            result.lookupsDeferredCount += 1;
            return;
          }
          const written = await this.outcomes.record(row, outcome);
          if (written === TRANSITIONS.published.to) result.publishedCount += 1;
          else if (written === TRANSITIONS.failed.to) result.failedCount += 1;
          else if (written === TRANSITIONS.retry.to) result.retriedCount += 1;
          else if (written === TRANSITIONS.missed.to) result.missedCount += 1;
          else if (written === TRANSITIONS.needs_attention.to) result.flaggedCount += 1;
        }),
      );
    }

    // 3. due with no live worker job of the current version
    const dueBefore = new Date(now.getTime() - this.settings.graceMs);
    const activeSince = new Date(now.getTime() - this.settings.leaseMs);
    const orphans = await reconcileRepository.withoutLiveJob(db, this.queue, organizationId, { dueBefore, activeSince, limit: BATCH });
    for (const o of orphans) {
      await db.transaction().execute(async (tx) => {
        if (o.state === TRANSITIONS.processing.to) {
          await sendTargetJob(
            this.deps.jobs,
            tx,
            {
              targetId: o.id,
              organizationId: o.organization_id,
              version: o.version,
              step: 'poll',
            },
            null,
          );
          result.pollsRequeuedCount += 1;
          return;
        }
        const bumped = await reconcileRepository.bumpVersion(tx, o.organization_id, o, now);
        if (bumped === null) return;
        await sendTargetJob(
          this.deps.jobs,
          tx,
          {
            targetId: o.id,
            organizationId: o.organization_id,
            version: bumped,
            step: 'publish',
            platform: o.platform,
            channelAccountId: o.channel_account_id,
          },
          null,
        );
        result.requeuedCount += 1;
      });
    }

    // 4. first comments
    const leaseCutoff = new Date(now.getTime() - this.settings.leaseMs);
    result.commentsFlaggedCount = await reconcileRepository.flagStuckComments(
      db,
      organizationId,
      leaseCutoff,
      JSON.stringify({
        code: 'lease_expired',
        category: 'unknown_outcome',
        message: 'The worker stopped while posting the first comment.',
        providerResponse: null,
        at: now.toISOString(),
      }),
    );
    const pending = await reconcileRepository.pendingCommentsWithoutJob(db, this.queue, organizationId, dueBefore, BATCH);
    for (const p of pending) {
      await db
        .transaction()
        .execute(async (tx) => sendCommentJob(this.deps.jobs, tx, { targetId: p.id, organizationId: p.organization_id }, null));
      result.commentsRequeuedCount += 1;
    }
    return result;
  }
}
