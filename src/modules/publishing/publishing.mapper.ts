/** Rows to API shapes. */
import { deriveJobStatus } from './publish-states.js';
import type { JobRow, TargetRow } from './publishing.repository.js';
import type { PublishJobT, PublishTargetT } from './publishing.schemas.js';
import type { TargetError } from './publishing.tables.js';

/** Stored errors are shown as strings whatever an adapter handed over. */
function normaliseError(e: unknown): TargetError | null {
  if (!e || typeof e !== 'object') return null;
  const r = e as Record<string, unknown>;
  return {
    code: String(r.code ?? 'unknown'),
    category: String(r.category ?? 'unknown'),
    message: String(r.message ?? ''),
    providerResponse: r.providerResponse ?? null,
    at: String(r.at ?? ''),
  };
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function toTarget(t: TargetRow): PublishTargetT {
  const fc = t.first_comment as { content: string; delayMs: number } | null;
  return {
    postTargetId: t.id,
    publishJobId: t.job_id,
    channelAccountId: t.channel_account_id,
    platform: t.platform,
    text: t.text,
    settings: t.settings as Record<string, unknown>,
    state: t.state as PublishTargetT['state'],
    stateReason: t.state_reason,
    scheduledAt: iso(t.scheduled_at),
    dueAt: iso(t.due_at ?? null),
    nextAttemptAt: iso(t.next_attempt_at),
    attempts: t.attempts,
    lastError: normaliseError(t.last_error),
    providerPostId: t.provider_post_id,
    providerUrl: t.provider_url,
    publishedAt: iso(t.published_at),
    firstComment: fc
      ? {
          content: fc.content,
          delayMs: fc.delayMs,
          state: t.first_comment_state ?? 'waiting',
          providerCommentId: t.first_comment_id,
          error: normaliseError(t.first_comment_error),
        }
      : null,
    createdAt: iso(t.created_at)!,
    updatedAt: iso(t.updated_at)!,
  };
}

export function toJob(j: JobRow, targets: TargetRow[]): PublishJobT {
  return {
    publishJobId: j.id,
    organizationId: j.organization_id,
    brandId: j.brand_id,
    productId: j.product_id,
    profileId: j.profile_id,
    title: j.title,
    text: j.text,
    media: (j.media as unknown as Array<Record<string, unknown>>) ?? [],
    // derived from the targets in this same answer, so job and targets never disagree (the stored
    // column, used for list filters, is written just after a target's outcome)
    status: (targets.length > 0 ? deriveJobStatus(targets.map((t) => t.state)) : j.status) as PublishJobT['status'],
    scheduledAt: iso(j.scheduled_at),
    runAfter: iso(j.run_after),
    idempotencyKey: j.idempotency_key,
    cancelReason: j.cancel_reason,
    approval: j.approval
      ? {
          state: j.approval.state,
          requestedBy: j.approval.requestedBy,
          requestedAt: j.approval.requestedAt,
          note: j.approval.note ?? null,
          scheduleAt: j.approval.scheduleAt ?? null,
          decidedBy: j.approval.decidedBy ?? null,
          decidedAt: j.approval.decidedAt ?? null,
          reason: j.approval.reason ?? null,
        }
      : null,
    maxLatenessMinutes: j.max_lateness_minutes ?? null,
    targetCount: targets.length,
    targets: targets.map(toTarget),
    createdAt: iso(j.created_at)!,
    updatedAt: iso(j.updated_at)!,
  };
}
