import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.tables.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export const webhooksRepository = {
  async listEndpoints(db: Executor, organizationId: string, afterId: string | null, limit: number): Promise<EndpointRow[]> {
    let q = db.selectFrom('webhook_endpoints').selectAll().where('organization_id', '=', organizationId);
    if (afterId) q = q.where('id', '>', afterId);
    return q
      .orderBy('id')
      .limit(limit + 1)
      .execute();
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

  /** Enabled endpoints of the organization subscribed to the type (an empty list subscribes to all). */
  async subscribers(db: Executor, organizationId: string, type: string): Promise<{ id: string }[]> {
    return db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('enabled', '=', true)
      .where((eb) =>
        eb.or([eb(sql`jsonb_array_length(event_types)`, '=', 0), eb(sql`event_types`, '@>', sql`${JSON.stringify([type])}::jsonb`)]),
      )
      .orderBy('id')
      .execute();
  },

  /** Enabled endpoints of these organizations with their event filters (empty: every event), in id order. */
  async enabledEndpointsOf(
    db: Executor,
    organizationIds: string[],
  ): Promise<Array<{ id: string; organization_id: string; event_types: string[] }>> {
    if (organizationIds.length === 0) return [];
    const rows = await db
      .selectFrom('webhook_endpoints')
      .select(['id', 'organization_id', 'event_types'])
      .where('organization_id', 'in', organizationIds)
      .where('enabled', '=', true)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: r.id, organization_id: r.organization_id, event_types: (r.event_types ?? []) as string[] }));
  },

  /** Events written in one transaction share their creation time: fanned_out_at takes it, as fanOut does. */
  async markFannedOut(db: Executor, eventIds: string[]): Promise<void> {
    await db
      .updateTable('events')
      .set({ fanned_out_at: sql`created_at` } as never)
      .where('id', 'in', eventIds)
      .execute();
  },

  async insertDelivery(db: Executor, row: Insertable<WebhookDeliveriesTable>) {
    await db.insertInto('webhook_deliveries').values(row).execute();
  },

  async listDeliveries(
    db: Executor,
    organizationId: string,
    endpointId: string,
    q: { afterId: string | null; limit: number; status?: string },
  ): Promise<DeliveryRow[]> {
    let query = db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('endpoint_id', '=', endpointId);
    if (q.status) query = query.where('status', '=', q.status);
    // newest first, like every delivery log integrators know
    if (q.afterId) query = query.where('id', '<', q.afterId);
    return query
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

  async failedSince(db: Executor, organizationId: string, endpointId: string, since: Date): Promise<DeliveryRow[]> {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'failed')
      .where('created_at', '>=', since)
      .orderBy('id')
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
};
