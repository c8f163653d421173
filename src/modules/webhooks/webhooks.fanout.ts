/**
 * The outbox side of webhooks: turning events into delivery rows (inside the event's transaction; a
 * row is due at once and the workers claim it from the table) and the sweep that fans out events missed
 * by their transaction.
 */

import type { RecordedEvent } from '../../platform/events/outbox.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { type DeliveryRow, webhooksRepository as repo } from './webhooks.repository.js';
import { DELIVERY_ID_PREFIX } from './webhooks.schemas.js';

/**
 * The queue whose worker runs the delivery claim loop. Deliveries have no job of their own any more; a
 * job left by an older version finds its delivery claimable from the table and does nothing.
 */
export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
export interface DeliverJobData {
  deliveryId: string;
  attempt: number;
}

export class WebhookFanOut {
  constructor(private readonly deps: Pick<AppDeps, 'config' | 'database' | 'clock'>) {}

  private get db() {
    return this.deps.database.db;
  }

  /** New pending deliveries of one event, one per endpoint, due at once: one statement whatever the count. */
  async createDeliveries(tx: Executor, organizationId: string, endpointIds: string[], eventId: string, eventType: string) {
    if (endpointIds.length === 0) return [];
    const at = this.deps.clock.now();
    // the queue's time is real time, like a queue's start-after (WebhookDeliverer.claim)
    const due = new Date();
    const rows: DeliveryRow[] = endpointIds.map((endpointId) => ({
      id: newId(DELIVERY_ID_PREFIX),
      organization_id: organizationId,
      endpoint_id: endpointId,
      event_id: eventId,
      event_type: eventType,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: at,
      claim_at: due,
      leased_until: null,
      last_status_code: null,
      last_error: null,
      delivered_at: null,
      created_at: at,
      updated_at: at,
    }));
    await repo.insertDeliveries(tx, rows);
    return rows;
  }

  /**
   * The outbox's fan-out (`EventOutbox.subscribeFanOut`) for the events of one outbox write, inside its
   * transaction: one endpoint query for all of them (a burst of publish outcomes records dozens of events
   * in one transaction). The outbox writes these rows already marked fanned out.
   */
  async fanOutMany(tx: Executor, events: RecordedEvent[]) {
    if (events.length === 1) return this.deliveriesOf(tx, events[0]!);
    if (events.length === 0) return;
    const endpoints = await repo.enabledEndpointsOf(tx, [...new Set(events.map((e) => e.organizationId))]);
    for (const event of events) {
      const ids = endpoints
        .filter(
          (e) =>
            e.organization_id === event.organizationId &&
            (e.event_types.length === 0 || e.event_types.includes(event.type)) &&
            (event.audience !== 'batch_job_events' || e.batch_job_events),
        )
        .map((e) => e.id);
      await this.createDeliveries(tx, event.organizationId, ids, event.id, event.type);
    }
  }

  /** One delivery per subscribed enabled endpoint of the event's organization. */
  private async deliveriesOf(tx: Executor, event: RecordedEvent) {
    const endpoints = await repo.subscribers(tx, event.organizationId, event.type, event.audience ?? null);
    await this.createDeliveries(
      tx,
      event.organizationId,
      endpoints.map((e) => e.id),
      event.id,
      event.type,
    );
  }

  /** The sweep's fan-out of one unmarked event, inside the transaction that claimed it: deliveries, then the mark. */
  async fanOut(tx: Executor, event: RecordedEvent) {
    await this.deliveriesOf(tx, event);
    await repo.markFannedOut(tx, event.id, event.createdAt);
  }

  /**
   * Safety net for the outbox: fans out events whose fan-out did not happen with their change (an event
   * recorded by a process without the webhooks listener, or a fan-out that failed). Each event is claimed
   * under a row lock, so concurrent sweeps never create two deliveries for one endpoint.
   */
  async sweep(olderThanMs = 5_000, limit = 500): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - olderThanMs);
    const ids = await repo.unfannedEvents(this.db, cutoff, limit);
    let done = 0;
    for (const id of ids) {
      const swept = await this.db.transaction().execute(async (tx) => {
        const e = await repo.claimUnfannedEvent(tx, id);
        if (!e) return false;
        await this.fanOut(tx, {
          id: e.id,
          organizationId: e.organization_id,
          type: e.type as RecordedEvent['type'],
          data: e.data,
          sequence: e.sequence,
          createdAt: new Date(e.created_at),
          audience: (e.audience ?? null) as RecordedEvent['audience'],
        });
        return true;
      });
      if (swept) done++;
    }
    return done;
  }
}
