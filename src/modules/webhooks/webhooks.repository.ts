import { type Insertable, type Selectable, sql } from 'kysely';
import { keysetPage } from '../../platform/db/keyset.js';
import { prepared } from '../../platform/db/prepared.js';
import type { Executor } from '../database.js';
import { DELIVERY_STATUSES } from './webhooks.schemas.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.tables.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export const webhooksRepository = {
  async listEndpoints(db: Executor, organizationId: string, afterId: string | null, limit: number): Promise<EndpointRow[]> {
    const q = db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', organizationId);
    return keysetPage(q, 'id', afterId, limit).execute();
  },

  async getEndpoint(db: Executor, organizationId: string, id: string, forUpdate = false): Promise<EndpointRow | null> {
    let q = db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
    if (forUpdate) q = q.forUpdate();
    return (await q.executeTakeFirst()) ?? null;
  },

  async insertEndpoint(db: Executor, row: Insertable<WebhookEndpointsTable>) {
    await db.insertInto('webhook_endpoints').values(row).execute();
  },

  async updateEndpoint(db: Executor, organizationId: string, id: string, set: Partial<Record<keyof WebhookEndpointsTable, unknown>>) {
    return db
      .updateTable('webhook_endpoints')
      .set(set as never)
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  },

  async deleteEndpoint(db: Executor, organizationId: string, id: string): Promise<boolean> {
    const r = await db
      .deleteFrom('webhook_endpoints')
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },

  /**
   * Enabled endpoints of the organization subscribed to the type (an empty list subscribes to all); for an
   * event of the batch_job_events audience, only those that opted in.
   */
  async subscribers(db: Executor, organizationId: string, type: string, audience: string | null = null): Promise<{ id: string }[]> {
    return (
      db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('enabled', '=', true)
        .$if(audience === 'batch_job_events', (q) => q.where('batch_job_events', '=', true))
        .where((eb) =>
          eb.or([eb(sql`jsonb_array_length(event_types)`, '=', 0), eb(sql`event_types`, '@>', sql`${JSON.stringify([type])}::jsonb`)]),
        )
        .orderBy('id')
        // every recorded event asks this: planned once per connection
        .modifyEnd(prepared)
        .execute()
    );
  },

  /** Enabled endpoints of these organizations with their event filters (empty: every event), in id order. */
  async enabledEndpointsOf(
    db: Executor,
    organizationIds: string[],
  ): Promise<Array<{ id: string; organization_id: string; event_types: string[]; batch_job_events: boolean }>> {
    if (organizationIds.length === 0) return [];
    const rows = await db
      .selectFrom('webhook_endpoints')
      .select(['id', 'organization_id', 'event_types', 'batch_job_events'])
      .where('organization_id', 'in', organizationIds)
      .where('enabled', '=', true)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      organization_id: r.organization_id,
      event_types: (r.event_types ?? []) as string[],
      batch_job_events: r.batch_job_events,
    }));
  },

  async insertDeliveries(db: Executor, rows: Insertable<WebhookDeliveriesTable>[]) {
    if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).modifyEnd(prepared).execute();
  },

  async listDeliveries(
    db: Executor,
    organizationId: string,
    endpointId: string,
    q: { afterId: string | null; limit: number; status?: string },
  ): Promise<DeliveryRow[]> {
    // newest first, like every delivery log integrators know; each status is one range of
    // webhook_deliveries_endpoint_status_idx (endpoint, status, id)
    const ofStatus = (status: string) =>
      keysetPage(
        db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('organization_id', '=', organizationId)
          .where('endpoint_id', '=', endpointId)
          .where('status', '=', status),
        'id',
        q.afterId,
        q.limit,
        'desc',
      );
    if (q.status) return ofStatus(q.status).execute();
    // The unfiltered log is the merge of the three ranges, each read only as far as the page needs: the
    // table keeps no (endpoint, id) index, as every delivery would write it three times (migration 0026).
    const merged = sql<DeliveryRow>`(${sql.join(
      DELIVERY_STATUSES.map((s) => ofStatus(s)),
      sql` union all `,
    )})`;
    return db
      .selectFrom(merged.as('d'))
      .selectAll()
      .orderBy('id', 'desc')
      .limit(q.limit + 1)
      .execute();
  },

  async attemptsFor(db: Executor, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempt').execute();
  },

  async getDelivery(db: Executor, organizationId: string | null, id: string): Promise<DeliveryRow | null> {
    let q = db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id);
    if (organizationId) q = q.where('organization_id', '=', organizationId);
    return (await q.executeTakeFirst()) ?? null;
  },

  /**
   * The events of the endpoint's failed deliveries since a time, one delivery each (the oldest), leaving
   * out the events already queued again and not yet attempted (a second recover must not send twice).
   */
  async failedSince(db: Executor, organizationId: string, endpointId: string, since: Date): Promise<DeliveryRow[]> {
    return db
      .selectFrom('webhook_deliveries as d')
      .selectAll('d')
      .distinctOn('d.event_id')
      .where('d.organization_id', '=', organizationId)
      .where('d.endpoint_id', '=', endpointId)
      .where('d.status', '=', 'failed')
      .where('d.created_at', '>=', since)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as q')
              .select(sql.lit(1).as('one'))
              .whereRef('q.endpoint_id', '=', 'd.endpoint_id')
              .whereRef('q.event_id', '=', 'd.event_id')
              .where('q.status', '=', 'pending')
              .where('q.attempt_count', '=', 0),
          ),
        ),
      )
      .orderBy('d.event_id')
      .orderBy('d.id')
      .limit(10_000)
      .execute();
  },

  async pendingOf(db: Executor, endpointId: string): Promise<DeliveryRow[]> {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .orderBy('id')
      .execute();
  },

  async getEvent(db: Executor, id: string) {
    return (await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  },

  async markFannedOut(db: Executor, eventId: string, at: Date) {
    await db
      .updateTable('events')
      .set({ fanned_out_at: at } as never)
      .where('id', '=', eventId)
      .execute();
  },

  async unfannedEvents(db: Executor, cutoff: Date, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('events')
      .select('id')
      .where('fanned_out_at', 'is', null)
      .where('created_at', '<=', cutoff)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  },

  /** The event if it is still not fanned out, locked until the transaction ends (skipped when another holds it). */
  async claimUnfannedEvent(tx: Executor, id: string) {
    return (
      (await tx
        .selectFrom('events')
        .selectAll()
        .where('id', '=', id)
        .where('fanned_out_at', 'is', null)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst()) ?? null
    );
  },
};
