/**
 * The outbox side of webhooks: turning events into delivery rows and delivery jobs (inside the event's
 * transaction), the sweep that fans out events missed by their transaction, and the retention prune.
 */

import type { RecordedEvent } from '../../platform/events/outbox.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { type DeliveryRow, webhooksRepository as repo } from './webhooks.repository.js';
import { DELIVERY_ID_PREFIX } from './webhooks.schemas.js';

export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
export interface DeliverJobData {
  deliveryId: string;
  /** attempts made before this one; a job whose count is stale does nothing */
  attempt: number;
}

export class WebhookFanOut {
  constructor(private readonly deps: Pick<AppDeps, 'config' | 'database' | 'jobs' | 'clock'>) {}

  private get db() {
    return this.deps.database.db;
  }

  /** New pending deliveries of one event, one per endpoint, with their jobs: two statements whatever the count. */
  async createDeliveries(tx: Executor, organizationId: string, endpointIds: string[], eventId: string, eventType: string) {
    if (endpointIds.length === 0) return [];
    const at = this.deps.clock.now();
    const rows: DeliveryRow[] = endpointIds.map((endpointId) => ({
      id: newId(DELIVERY_ID_PREFIX),
      organization_id: organizationId,
      endpoint_id: endpointId,
      event_id: eventId,
      event_type: eventType,
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: at,
      last_status_code: null,
      last_error: null,
      delivered_at: null,
      created_at: at,
      updated_at: at,
    }));
    await repo.insertDeliveries(tx, rows);
    await this.queue(
      tx,
      rows.map((r) => ({ deliveryId: r.id, attempt: 0 })),
      0,
    );
    return rows;
  }

  /** Delivery jobs, sent with the transaction so they exist exactly when their rows commit. */
  async queue(tx: Executor, jobs: DeliverJobData[], delayMs: number) {
    if (jobs.length === 0) return;
    await this.deps.jobs.sendMany(WEBHOOK_DELIVER_JOB, jobs, {
      tx,
      retryLimit: 3,
      retryDelay: 5,
      expireInSeconds: Math.ceil(this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS / 1000) + 45,
      ...(delayMs > 0 ? { startAfter: new Date(Date.now() + delayMs) } : {}),
    });
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

  /**
   * Deliveries whose attempt is overdue by more than a timeout and a minute lost their job (the worker
   * running it was killed mid-attempt, before pg-boss expires the job): they get a new job. The attempt
   * count guards against doubles: whichever job records first wins, the other finds its count stale.
   */
  async reclaim(limit = 500): Promise<number> {
    const now = this.deps.clock.now();
    const cutoff = new Date(now.getTime() - this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS - 60_000);
    return this.db.transaction().execute(async (tx) => {
      const rows = await repo.claimOverdue(tx, cutoff, now, limit);
      await this.queue(
        tx,
        rows.map((r) => ({ deliveryId: r.id, attempt: r.attempt_count })),
        0,
      );
      return rows.length;
    });
  }

  /**
   * Retention: deletes finished deliveries (their attempts cascade) older than the setting, then the
   * event payloads no delivery refers to any more (the newest event of a sequence stays: it carries
   * the sequence number the next event continues from).
   */
  async prune(): Promise<{ deliveries: number; events: number }> {
    const cutoff = new Date(this.deps.clock.now().getTime() - this.deps.config.env.SERVICE_WEBHOOK_RETENTION_DAYS * 86_400_000);
    return repo.pruneBefore(this.db, cutoff);
  }
}
