/**
 * The delivery side's SQL: claiming due deliveries straight from their table, their outcomes, the
 * endpoint's health, deferrals and parking. Every statement on a row that has an organization names it
 * (the claim joins a delivery to its endpoint within the same organization); the claim itself reads across
 * organizations, as the worker serves them all.
 *
 * `claim_at` is the delivery's place in the queue: due since, or a retry's time; null when nothing is to
 * be sent. `leased_until` is the end of the lease of the worker that claimed it: a worker killed mid-send
 * leaves its lease, and the delivery is claimed again once it ends, with the same webhook-id. The lease
 * has its own column, which no index holds, so that a claim is a HOT update (no index entry written);
 * moving `claim_at` instead wrote an entry in each of the row's five indexes (migration 0029).
 */
import { sql } from 'kysely';
import { prepared } from '../../platform/db/prepared.js';
import type { Executor } from '../database.js';

/** A claimed delivery with its endpoint and event, everything one attempt needs. */
export interface DeliveryContext {
  delivery_id: string;
  organization_id: string;
  status: string;
  attempt_count: number;
  event_type: string;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  event_id: string;
  type: string;
  data: unknown;
  sequence: number | null;
  event_created_at: Date;
}

export interface DeliveredRow {
  deliveryId: string;
  previousAttempts: number;
  attemptId: string;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  at: Date;
}

export interface AttemptOutcome {
  organizationId: string;
  deliveryId: string;
  previousAttempts: number;
  status: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  claimAt: Date | null;
  statusCode: number | null;
  lastError: string | null;
  at: Date;
  attempt: {
    id: string;
    durationMs: number;
    excerpt: string | null;
    errorClass: string | null;
  };
}

/**
 * When the organization's pending deliveries (one by id, or an endpoint's) are next due; null parks them.
 * A park comes from the worker that holds the delivery's lease, and ends it; a resume leaves the leases of
 * attempts in flight as they are (they record their outcome, or end).
 */
async function setPendingDue(db: Executor, organizationId: string, by: 'id' | 'endpoint_id', value: string, due: Date | null) {
  await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: due, claim_at: due, ...(due === null ? { leased_until: null } : {}) })
    .where('organization_id', '=', organizationId)
    .where(by, '=', value)
    .where('status', '=', 'pending')
    .execute();
}
export const webhookDeliveryRepository = {
  /**
   * Up to `limit` due deliveries, leased until `leaseUntil` (`leased_until`), with their
   * endpoint and event, oldest due first. Rows another worker is claiming are skipped (SKIP LOCKED), so
   * two workers never claim one delivery; the endpoint row is read with every claim (never cached), so an
   * update, a rotated secret or a disable counts at once. Deliveries of the endpoints in `skipEndpoints`
   * (those this worker already has at their concurrency limit) are left for later.
   *
   * The due rows are read in index order (`webhook_deliveries_claim_idx`) with no other condition: only
   * pending rows have a claim_at, and a `status` filter here made the planner, with the statistics of a
   * table that filled since its last analyze, expect a few dozen due rows and read and sort every due row
   * instead (420 ms a claim at a backlog of 30,000, against an index scan of the first rows). The scan
   * passes over the deliveries leased now (they keep their place): the few in flight, or for one lease's
   * time the claims of a worker that died. The limit is written into the text, so that the plan PostgreSQL
   * keeps for the prepared statement reads the index's first rows: with a parameter it supposes a tenth of
   * the table and the generic plan read and sorted every due row (8.8 against 1.3 ms a claim).
   */
  async claimDue(db: Executor, now: Date, leaseUntil: Date, limit: number, skipEndpoints: string[]): Promise<DeliveryContext[]> {
    const skip = skipEndpoints.length > 0 ? sql`and endpoint_id <> all(${skipEndpoints}::text[])` : sql``;
    const r = await sql<DeliveryContext>`
      with due as (
        select id from webhook_deliveries
         where claim_at is not null and claim_at <= ${now} ${skip}
           and (leased_until is null or leased_until <= ${now})
         order by claim_at
         limit ${sql.lit(Math.trunc(limit))}
         for update skip locked),
      claimed as (
        update webhook_deliveries d set leased_until = ${leaseUntil}
          from due where d.id = due.id and d.status = 'pending'
        returning d.id, d.organization_id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempt_count)
      select c.id as delivery_id, c.organization_id, c.status, c.attempt_count, c.event_type,
             e.id as endpoint_id, e.url, e.enabled, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at, e.failing_since,
             v.id as event_id, v.type, v.data, v.sequence, v.created_at as event_created_at
        from claimed c
        join webhook_endpoints e on e.id = c.endpoint_id and e.organization_id = c.organization_id
        join events v on v.id = c.event_id and v.organization_id = c.organization_id${prepared}`.execute(db);
    return r.rows;
  },

  /**
   * Claimed deliveries given back unattempted (their endpoint had no free slot): claimable again at `claimAt`
   * (a lease of that length, so the row keeps its place in the queue and the write stays HOT).
   */
  async release(db: Executor, rows: { organizationId: string; deliveryId: string; previousAttempts: number }[], claimAt: Date) {
    if (rows.length === 0) return;
    const values = sql.join(rows.map((r) => sql`(${r.deliveryId}::text, ${r.organizationId}::text, ${r.previousAttempts}::int)`));
    await sql`
      update webhook_deliveries d set leased_until = ${claimAt}
        from (values ${values}) as i (id, organization_id, previous)
       where d.id = i.id and d.organization_id = i.organization_id and d.attempt_count = i.previous and d.status = 'pending'`.execute(db);
  },

  /** A delivery whose endpoint is disabled waits unclaimed until the endpoint is enabled again. */
  async park(db: Executor, organizationId: string, deliveryId: string) {
    await setPendingDue(db, organizationId, 'id', deliveryId, null);
  },

  /** The pending deliveries of an endpoint (parked while it was disabled) are due now. */
  async resumeEndpoint(db: Executor, organizationId: string, endpointId: string, now: Date) {
    await setPendingDue(db, organizationId, 'endpoint_id', endpointId, now);
  },

  /**
   * Successful attempts of deliveries whose endpoint was not failing: their outcomes and log entries in
   * one statement (atomic on its own). Answers the ids recorded; a delivery that moved on meanwhile (a
   * reclaimed lease whose other attempt recorded first) is left out.
   */
  async recordDeliveredMany(db: Executor, rows: DeliveredRow[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    // in id order, so that two batches never wait on each other's rows in opposite orders
    const sorted = [...rows].sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : a.deliveryId > b.deliveryId ? 1 : 0));
    const values = sql.join(
      sorted.map(
        (d) =>
          sql`(${d.deliveryId}::text, ${d.previousAttempts}::int, ${d.attemptId}::text, ${d.statusCode}::int, ${d.durationMs}::int, ${d.excerpt}::text, ${d.at}::timestamptz)`,
      ),
    );
    const r = await sql<{ delivery_id: string }>`
      with i (id, previous, attempt_id, status_code, duration_ms, excerpt, at) as (values ${values}),
      u as (
        update webhook_deliveries d
           set status = 'delivered', attempt_count = i.previous + 1, next_attempt_at = null, claim_at = null, leased_until = null,
               last_status_code = i.status_code, last_error = null, delivered_at = i.at, updated_at = i.at
          from i
         where d.id = i.id and d.attempt_count = i.previous and d.status = 'pending'
         returning d.id)
      insert into webhook_attempts (id, delivery_id, attempt, status_code, duration_ms, response_excerpt, error_class, next_retry_at, created_at)
      select i.attempt_id, i.id, i.previous + 1, i.status_code, i.duration_ms, i.excerpt, null, null, i.at from i join u on u.id = i.id
      returning delivery_id${prepared}`.execute(db);
    return new Set(r.rows.map((x) => x.delivery_id));
  },

  /** Any other outcome (a failure, a retry, a test event, a recovering endpoint): the delivery and its log entry. False when stale. */
  async recordAttempt(tx: Executor, o: AttemptOutcome): Promise<boolean> {
    const updated = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: o.status,
        attempt_count: o.previousAttempts + 1,
        next_attempt_at: o.nextAttemptAt,
        claim_at: o.claimAt,
        leased_until: null,
        last_status_code: o.statusCode,
        last_error: o.lastError,
        delivered_at: o.status === 'delivered' ? o.at : null,
        updated_at: o.at,
      })
      .where('organization_id', '=', o.organizationId)
      .where('id', '=', o.deliveryId)
      .where('attempt_count', '=', o.previousAttempts)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await tx
      .insertInto('webhook_attempts')
      .values({
        id: o.attempt.id,
        delivery_id: o.deliveryId,
        attempt: o.previousAttempts + 1,
        status_code: o.statusCode,
        duration_ms: o.attempt.durationMs,
        response_excerpt: o.attempt.excerpt,
        error_class: o.attempt.errorClass,
        next_retry_at: o.status === 'pending' ? o.nextAttemptAt : null,
        created_at: o.at,
      })
      .execute();
    return true;
  },

  /** A recovering endpoint: its run of failures ends. */
  async clearFailing(db: Executor, organizationId: string, endpointId: string) {
    await db
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('organization_id', '=', organizationId)
      .where('id', '=', endpointId)
      .execute();
  },

  /** The endpoint's health, locked until the transaction ends. */
  async endpointHealthForUpdate(tx: Executor, organizationId: string, endpointId: string) {
    return (
      (await tx
        .selectFrom('webhook_endpoints')
        .select(['failing_since', 'enabled'])
        .where('organization_id', '=', organizationId)
        .where('id', '=', endpointId)
        .forUpdate()
        .executeTakeFirst()) ?? null
    );
  },

  /** A failure: the run of failures (started now when none was), and the disable when it is due. */
  async markFailing(
    tx: Executor,
    organizationId: string,
    endpointId: string,
    failingSince: Date,
    disable: { reason: string; at: Date } | null,
  ) {
    await tx
      .updateTable('webhook_endpoints')
      .set({
        failing_since: failingSince,
        ...(disable ? { enabled: false, disabled_reason: disable.reason, updated_at: disable.at } : {}),
      })
      .where('organization_id', '=', organizationId)
      .where('id', '=', endpointId)
      .execute();
  },

  /** The event of a test send (already fanned out: its one delivery is written with it). */
  async insertTestEvent(tx: Executor, organizationId: string, eventId: string, endpointId: string, at: Date) {
    await tx
      .insertInto('events')
      .values({
        id: eventId,
        organization_id: organizationId,
        type: 'webhook_endpoint.test',
        data: JSON.stringify({ webhookEndpointId: endpointId, message: 'This is a test event.' }),
        sequence_key: null,
        sequence: null,
        created_at: at,
        fanned_out_at: at,
      } as never)
      .execute();
  },
};
