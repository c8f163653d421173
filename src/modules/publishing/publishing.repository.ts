/**
 * Kysely queries of publish jobs and targets. Every read and write is confined to one organization;
 * state changes are conditional UPDATEs on (state, version) so concurrent writers cannot skip a rule.
 */

import { type Selectable, sql } from 'kysely';
import { keysetPage, type TimeKey, timeKeysetPage } from '../../platform/db/keyset.js';
import type { Executor } from '../database.js';
import { deriveJobStatus, IN_FLIGHT_STATES, PENDING_STATES, type TargetEvent, TRANSITIONS } from './publish-states.js';
import type { ApprovalRecord, PublishJobsTable, PublishTargetsTable, StoredMedia } from './publishing.tables.js';

export type JobRow = Selectable<PublishJobsTable>;
export type TargetRow = Selectable<PublishTargetsTable>;

export interface NewJob {
  id: string;
  organizationId: string;
  brandId: string;
  productId: string | null;
  profileId: string | null;
  title: string | null;
  text: string;
  media: StoredMedia[];
  status: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  scheduledAt: Date | null;
  runAfter: Date | null;
  /** the lateness limit (null or omitted: none) */
  maxLatenessMinutes?: number | null;
  at: Date;
}

export interface NewTarget {
  id: string;
  channelAccountId: string;
  platform: string;
  position: number;
  text: string;
  settings: Record<string, unknown>;
  state: string;
  scheduledAt: Date | null;
  nextAttemptAt: Date | null;
  firstComment: { content: string; delayMs: number } | null;
}

export interface JobListQuery {
  brandId?: string;
  status?: string;
  from?: Date;
  to?: Date;
  /** newest first by id, or (a time window) by the time the job is for, then id */
  order: { by: 'id'; before: string | null } | { by: 'time'; after: TimeKey | null };
  limit: number;
}

export const publishingRepository = {
  async insertJob(db: Executor, job: NewJob, targets: NewTarget[]): Promise<void> {
    await publishingRepository.insertJobs(db, [{ job, targets }]);
  },

  /** Jobs and their targets in one statement each per 500 rows (publish batches create many at once). */
  async insertJobs(db: Executor, entries: Array<{ job: NewJob; targets: NewTarget[] }>): Promise<void> {
    const jobRows = entries.map(({ job }) => ({
      id: job.id,
      organization_id: job.organizationId,
      brand_id: job.brandId,
      product_id: job.productId,
      profile_id: job.profileId,
      title: job.title,
      text: job.text,
      media: JSON.stringify(job.media),
      status: job.status,
      idempotency_key: job.idempotencyKey,
      request_hash: job.requestHash,
      scheduled_at: job.scheduledAt,
      run_after: job.runAfter,
      max_lateness_minutes: job.maxLatenessMinutes ?? null,
      created_at: job.at,
      updated_at: job.at,
    }));
    const targetRows = entries.flatMap(({ job, targets }) =>
      targets.map((t) => ({
        id: t.id,
        organization_id: job.organizationId,
        job_id: job.id,
        brand_id: job.brandId,
        channel_account_id: t.channelAccountId,
        platform: t.platform,
        position: t.position,
        text: t.text,
        settings: JSON.stringify(t.settings),
        state: t.state,
        scheduled_at: t.scheduledAt,
        next_attempt_at: t.nextAttemptAt,
        due_at: t.state === 'scheduled' || t.state === 'queued' ? t.nextAttemptAt : null,
        last_error: JSON.stringify(null),
        first_comment: JSON.stringify(t.firstComment),
        first_comment_state: t.firstComment ? 'waiting' : null,
        first_comment_error: JSON.stringify(null),
        created_at: job.at,
        updated_at: job.at,
      })),
    );
    for (let i = 0; i < jobRows.length; i += 500)
      await db
        .insertInto('publish_jobs')
        .values(jobRows.slice(i, i + 500))
        .execute();
    for (let i = 0; i < targetRows.length; i += 500)
      await db
        .insertInto('publish_targets')
        .values(targetRows.slice(i, i + 500))
        .execute();
  },

  async findByIdempotencyKey(db: Executor, organizationId: string, key: string): Promise<JobRow | null> {
    return (
      (await db
        .selectFrom('publish_jobs')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst()) ?? null
    );
  },

  async getJob(db: Executor, organizationId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<JobRow | null> {
    let q = db.selectFrom('publish_jobs').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
    if (opts.forUpdate) q = q.forUpdate();
    return (await q.executeTakeFirst()) ?? null;
  },

  /** The organization's jobs of the ids, in id order. */
  async getJobs(db: Executor, organizationId: string, ids: string[]): Promise<JobRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom('publish_jobs')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
  },

  /** Newest first (ids are ULIDs, or the time the job is for), fetched with limit + 1. */
  async listJobs(db: Executor, organizationId: string, q: JobListQuery): Promise<JobRow[]> {
    let query = db.selectFrom('publish_jobs').selectAll().where('organization_id', '=', organizationId);
    if (q.brandId) query = query.where('brand_id', '=', q.brandId);
    if (q.status) query = query.where('status', '=', q.status);
    // from/to select on the time the job is for: its schedule, else its creation (indexed expression)
    const time = sql<Date>`coalesce(scheduled_at, created_at)`;
    if (q.from) query = query.where(time, '>=', q.from);
    if (q.to) query = query.where(time, '<', q.to);
    return (
      q.order.by === 'time'
        ? timeKeysetPage(query, time, 'id', q.order.after, q.limit)
        : keysetPage(query, 'id', q.order.before, q.limit, 'desc')
    ).execute();
  },

  async targetsOf(db: Executor, organizationId: string, jobIds: string[]): Promise<TargetRow[]> {
    if (jobIds.length === 0) return [];
    return db
      .selectFrom('publish_targets')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('job_id', 'in', jobIds)
      .orderBy('job_id')
      .orderBy('position')
      .execute();
  },

  async getTarget(db: Executor, id: string): Promise<TargetRow | null> {
    return (await db.selectFrom('publish_targets').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  },

  /**
   * Applies an event to the given targets of a job, only where the table allows it; bumps the version so
   * any queued worker job for the old version is skipped. Answers the rows that changed.
   */
  async applyEvent(
    db: Executor,
    organizationId: string,
    jobId: string,
    event: TargetEvent,
    set: {
      scheduledAt?: Date | null;
      nextAttemptAt?: Date | null;
      /** the time it is meant to publish (lateness is measured from it) */
      dueAt?: Date | null;
      stateReason?: string | null;
      at: Date;
    },
  ): Promise<TargetRow[]> {
    const t = TRANSITIONS[event];
    return db
      .updateTable('publish_targets')
      .set((eb) => ({
        state: t.to,
        version: eb('version', '+', 1),
        updated_at: set.at,
        ...(set.scheduledAt !== undefined ? { scheduled_at: set.scheduledAt } : {}),
        ...(set.nextAttemptAt !== undefined ? { next_attempt_at: set.nextAttemptAt } : {}),
        ...(set.dueAt !== undefined ? { due_at: set.dueAt } : {}),
        ...(set.stateReason !== undefined ? { state_reason: set.stateReason } : {}),
      }))
      .where('organization_id', '=', organizationId)
      .where('job_id', '=', jobId)
      .where('state', 'in', [...t.from])
      .returningAll()
      .execute();
  },

  /** Recomputes and stores the job's status from its targets (inside the caller's transaction). */
  async refreshJobStatus(db: Executor, jobId: string, at: Date): Promise<string> {
    const rows = await db.selectFrom('publish_targets').select('state').where('job_id', '=', jobId).execute();
    const status = deriveJobStatus(rows.map((r) => r.state));
    await db.updateTable('publish_jobs').set({ status, updated_at: at }).where('id', '=', jobId).where('status', '!=', status).execute();
    return status;
  },

  async setJobFields(
    db: Executor,
    jobId: string,
    set: { scheduledAt?: Date | null; cancelReason?: string | null; approval?: ApprovalRecord | null; at: Date },
  ): Promise<void> {
    await db
      .updateTable('publish_jobs')
      .set({
        updated_at: set.at,
        ...(set.approval !== undefined ? { approval: JSON.stringify(set.approval) } : {}),
        ...(set.scheduledAt !== undefined ? { scheduled_at: set.scheduledAt } : {}),
        ...(set.cancelReason !== undefined ? { cancel_reason: set.cancelReason } : {}),
      })
      .where('id', '=', jobId)
      .execute();
  },

  /** Whether the organization lets members publish without approval (default: no). */
  async membersPublishDirectly(db: Executor, organizationId: string): Promise<boolean> {
    const row = await db
      .selectFrom('publishing_settings')
      .select('members_publish_directly')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.members_publish_directly ?? false;
  },

  async publishingSettings(db: Executor, organizationId: string) {
    return (
      (await db.selectFrom('publishing_settings').selectAll().where('organization_id', '=', organizationId).executeTakeFirst()) ?? null
    );
  },

  async savePublishingSettings(db: Executor, organizationId: string, set: { membersPublishDirectly: boolean; by: string; at: Date }) {
    return db
      .insertInto('publishing_settings')
      .values({
        organization_id: organizationId,
        members_publish_directly: set.membersPublishDirectly,
        updated_by: set.by,
        updated_at: set.at,
      })
      .onConflict((oc) =>
        oc
          .column('organization_id')
          .doUpdateSet({ members_publish_directly: set.membersPublishDirectly, updated_by: set.by, updated_at: set.at }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** The channels' posts scheduled, in flight or published with their time (published, else scheduled) in [from, to]. */
  async postsOfChannels(db: Executor, organizationId: string, channelIds: string[], from: Date, to: Date) {
    if (channelIds.length === 0) return [];
    return db
      .selectFrom('publish_targets as t')
      .innerJoin('publish_jobs as j', 'j.id', 't.job_id')
      .select([
        't.channel_account_id',
        't.platform',
        't.text',
        'j.product_id',
        sql<Date>`coalesce(t.published_at, t.scheduled_at)`.as('at'),
      ])
      .where('t.organization_id', '=', organizationId)
      .where('t.channel_account_id', 'in', channelIds)
      .where('t.state', 'in', [...PENDING_STATES, ...IN_FLIGHT_STATES, TRANSITIONS.published.to])
      .where(sql<Date>`coalesce(t.published_at, t.scheduled_at)`, '>=', from)
      .where(sql<Date>`coalesce(t.published_at, t.scheduled_at)`, '<=', to)
      .execute();
  },

  /** The organization's targets of the given ids, by id (ids it has not are left out). */
  async targetsByIds(db: Executor, organizationId: string, ids: string[]) {
    const out = [];
    for (let i = 0; i < ids.length; i += 1000) {
      const part = ids.slice(i, i + 1000);
      out.push(
        ...(await db
          .selectFrom('publish_targets')
          .select([
            'id',
            'job_id',
            'platform',
            'channel_account_id',
            'state',
            'state_reason',
            'scheduled_at',
            'provider_post_id',
            'first_comment_state',
            'updated_at',
          ])
          .where('organization_id', '=', organizationId)
          .where('id', 'in', part)
          .orderBy('id')
          .execute()),
      );
    }
    return out;
  },
};
