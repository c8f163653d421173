import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { AppDeps } from '../../app-deps.js';
import { decodeCursor, page } from '../../http/pagination.js';
import type { Executor } from '../../platform/db/database.js';
import { AppError } from '../../platform/errors.js';
import type { RecordedEvent } from '../../platform/events/outbox.js';
import { GuardedFetchError, type GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { newId } from '../../platform/ids.js';
import { metricsOf } from '../../platform/metrics/index.js';
import { type AttemptRow, type DeliveryRow, type EndpointRow, webhooksRepository as repo } from './webhooks.repository.js';
import {
  type CreateT,
  DELIVERY_ID_PREFIX,
  ENDPOINT_ID_PREFIX,
  type UpdateT,
  type WebhookDeliveryT,
  type WebhookEndpointT,
} from './webhooks.schemas.js';
import { postSigned } from './webhooks.sender.js';

export const WEBHOOK_DELIVER_JOB = 'webhooks.deliver';
export interface DeliverJobData {
  deliveryId: string;
  /** attempts made before this one; a job whose count is stale does nothing */
  attempt: number;
}

/** Retry delays after attempt 1, 2, ... (the Svix schedule, about 27 h in all). */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
const ROTATION_OVERLAP_MS = 24 * 3600_000;
const RECOVER_MAX_MS = 14 * 24 * 3600_000;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const aad = (endpointId: string) => `webhook_endpoint:${endpointId}`;
export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const toEndpoint = (r: EndpointRow): WebhookEndpointT => ({
  webhookEndpointId: r.id,
  organizationId: r.organization_id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types ?? [],
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  metadata: r.metadata ?? {},
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

const toDelivery = (d: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryT => ({
  deliveryId: d.id,
  webhookEndpointId: d.endpoint_id,
  eventId: d.event_id,
  eventType: d.event_type,
  status: d.status as WebhookDeliveryT['status'],
  attemptCount: d.attempt_count,
  nextAttemptAt: iso(d.next_attempt_at),
  lastStatusCode: d.last_status_code,
  lastError: d.last_error,
  deliveredAt: iso(d.delivered_at),
  createdAt: d.created_at.toISOString(),
  updatedAt: d.updated_at.toISOString(),
  attempts: attempts.map((a) => ({
    attempt: a.attempt,
    statusCode: a.status_code,
    durationMs: a.duration_ms,
    responseExcerpt: a.response_excerpt,
    errorClass: a.error_class,
    nextRetryAt: iso(a.next_retry_at),
    createdAt: a.created_at.toISOString(),
  })),
});

/** Per-process limit of deliveries in flight to one endpoint. */
class EndpointSlots {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  constructor(private readonly limit: number) {}
  async acquire(key: string): Promise<() => void> {
    while ((this.inFlight.get(key) ?? 0) >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.set(key, [...(this.waiting.get(key) ?? []), resolve]));
    }
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    return () => {
      const n = (this.inFlight.get(key) ?? 1) - 1;
      if (n <= 0) this.inFlight.delete(key);
      else this.inFlight.set(key, n);
      const queue = this.waiting.get(key);
      const next = queue?.shift();
      if (queue && queue.length === 0) this.waiting.delete(key);
      next?.();
    };
  }
}

export class WebhooksService {
  private readonly slots: EndpointSlots;

  constructor(
    private readonly deps: AppDeps,
    private readonly client: GuardedHttpClient,
  ) {
    this.slots = new EndpointSlots(deps.config.env.SERVICE_WEBHOOK_ENDPOINT_CONCURRENCY);
  }

  private get db() {
    return this.deps.database.db;
  }
  private now() {
    return this.deps.clock.now();
  }
  private assertWritable() {
    if (!this.deps.config.gateOpen('SERVICE_WEBHOOK_WRITE_ENABLED')) throw new AppError('webhook_write_disabled');
  }

  private async assertSafeUrl(url: string) {
    try {
      await this.client.check(url);
    } catch (error) {
      // a name that does not resolve now may resolve later; it is checked again at every delivery
      if (error instanceof GuardedFetchError && error.code === 'dns_failed') return;
      throw new AppError('webhook_url_invalid', {
        message: `The webhook URL is not safe for outbound delivery: ${error instanceof Error ? error.message : 'invalid'}.`,
        fields: [{ path: ['url'], source: 'body' }],
      });
    }
  }

  private notFound(id: string): never {
    throw new AppError('webhook_endpoint_not_found', { message: `No webhook endpoint ${id} in the principal organization.` });
  }

  async list(organizationId: string, q: { limit?: number; cursor?: string }) {
    const limit = q.limit ?? 50;
    const afterId = decodeCursor(q.cursor, {}, 'invalid_public_webhook_endpoint_query');
    const rows = await repo.listEndpoints(this.db, organizationId, afterId, limit);
    const { data, nextCursor } = page(rows, limit, (r) => r.id, {});
    return { data: data.map(toEndpoint), nextCursor };
  }

  async create(organizationId: string, input: CreateT) {
    this.assertWritable();
    await this.assertSafeUrl(input.url);
    const id = newId(ENDPOINT_ID_PREFIX);
    const secret = newSecret();
    const at = this.now();
    let row: EndpointRow | null;
    try {
      await repo.insertEndpoint(this.db, {
        id,
        organization_id: organizationId,
        url: input.url,
        description: input.description ?? null,
        event_types: JSON.stringify(input.eventTypes ?? []) as never,
        enabled: input.enabled ?? true,
        disabled_reason: null,
        metadata: JSON.stringify(input.metadata ?? {}) as never,
        secret_enc: this.deps.encryptor.encrypt(secret, aad(id)),
        previous_secret_enc: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: at,
        updated_at: at,
      });
      row = await repo.getEndpoint(this.db, organizationId, id);
    } catch (cause) {
      throw new AppError('webhook_endpoint_create_failed', { cause });
    }
    if (!row) throw new AppError('webhook_endpoint_create_failed');
    return { ...toEndpoint(row), secret };
  }

  async update(organizationId: string, id: string, input: UpdateT) {
    this.assertWritable();
    if (input.url !== undefined) await this.assertSafeUrl(input.url);
    return this.db.transaction().execute(async (tx) => {
      const current = await repo.getEndpoint(tx, organizationId, id, true);
      if (!current) this.notFound(id);
      const set: Record<string, unknown> = { updated_at: this.now() };
      if (input.url !== undefined) set.url = input.url;
      if (input.description !== undefined) set.description = input.description;
      if (input.eventTypes !== undefined) set.event_types = JSON.stringify(input.eventTypes);
      if (input.metadata !== undefined) set.metadata = JSON.stringify(input.metadata);
      if (input.enabled !== undefined) {
        set.enabled = input.enabled;
        if (input.enabled) {
          set.disabled_reason = null;
          set.failing_since = null;
        }
      }
      const row = (await repo.updateEndpoint(tx, organizationId, id, set as never)) as EndpointRow;
      // re-enabling resumes deliveries that were waiting
      if (input.enabled === true && !current.enabled) {
        for (const d of await repo.pendingOf(tx, id)) await this.queue(tx, d.id, d.attempt_count, 0);
      }
      return toEndpoint(row);
    });
  }

  async remove(organizationId: string, id: string) {
    this.assertWritable();
    if (!(await repo.deleteEndpoint(this.db, organizationId, id))) this.notFound(id);
  }

  async deliveries(organizationId: string, endpointId: string, q: { limit?: number; cursor?: string; status?: string }) {
    if (!(await repo.getEndpoint(this.db, organizationId, endpointId))) this.notFound(endpointId);
    const limit = q.limit ?? 50;
    const filters = { status: q.status };
    const afterId = decodeCursor(q.cursor, filters, 'invalid_public_webhook_endpoint_query');
    const rows = await repo.listDeliveries(this.db, organizationId, endpointId, { afterId, limit, status: q.status });
    const { data, nextCursor } = page(rows, limit, (r) => r.id, filters);
    const attempts = await repo.attemptsFor(
      this.db,
      data.map((d) => d.id),
    );
    return {
      data: data.map((d) =>
        toDelivery(
          d,
          attempts.filter((a) => a.delivery_id === d.id),
        ),
      ),
      nextCursor,
    };
  }

  async rotateSecret(organizationId: string, id: string) {
    this.assertWritable();
    const secret = newSecret();
    await this.db.transaction().execute(async (tx) => {
      const current = await repo.getEndpoint(tx, organizationId, id, true);
      if (!current) this.notFound(id);
      const at = this.now();
      await repo.updateEndpoint(tx, organizationId, id, {
        secret_enc: this.deps.encryptor.encrypt(secret, aad(id)),
        previous_secret_enc: current.secret_enc,
        previous_secret_expires_at: new Date(at.getTime() + ROTATION_OVERLAP_MS),
        updated_at: at,
      });
    });
    return { secret };
  }

  /** Sends a webhook_endpoint.test event to this endpoint only. */
  async sendTest(organizationId: string, id: string) {
    this.assertWritable();
    return this.db.transaction().execute(async (tx) => {
      const endpoint = await repo.getEndpoint(tx, organizationId, id);
      if (!endpoint) this.notFound(id);
      const at = this.now();
      const eventId = newId('evt');
      await tx
        .insertInto('events')
        .values({
          id: eventId,
          organization_id: organizationId,
          type: 'webhook_endpoint.test',
          data: JSON.stringify({ webhookEndpointId: id, message: 'This is a test event.' }),
          sequence_key: null,
          sequence: null,
          created_at: at,
          fanned_out_at: at,
        } as never)
        .execute();
      const delivery = await this.createDelivery(tx, organizationId, id, eventId, 'webhook_endpoint.test');
      return toDelivery(delivery, []);
    });
  }

  /** A new delivery of the same event (same webhook-id) to the same endpoint. */
  async redeliver(organizationId: string, deliveryId: string) {
    this.assertWritable();
    return this.db.transaction().execute(async (tx) => {
      const original = await repo.getDelivery(tx, organizationId, deliveryId);
      if (!original)
        throw new AppError('webhook_endpoint_not_found', { message: `No webhook delivery ${deliveryId} in the principal organization.` });
      const delivery = await this.createDelivery(tx, organizationId, original.endpoint_id, original.event_id, original.event_type);
      return toDelivery(delivery, []);
    });
  }

  async recover(organizationId: string, endpointId: string, sinceText: string) {
    this.assertWritable();
    const since = new Date(sinceText);
    if (this.now().getTime() - since.getTime() > RECOVER_MAX_MS)
      throw new AppError('invalid_request', {
        message: 'since must be within the last 14 days.',
        fields: [{ path: ['since'], source: 'body' }],
      });
    return this.db.transaction().execute(async (tx) => {
      if (!(await repo.getEndpoint(tx, organizationId, endpointId))) this.notFound(endpointId);
      const failed = await repo.failedSince(tx, organizationId, endpointId, since);
      for (const d of failed) await this.createDelivery(tx, organizationId, endpointId, d.event_id, d.event_type);
      return { recovered: failed.length };
    });
  }

  private async createDelivery(tx: Executor, organizationId: string, endpointId: string, eventId: string, eventType: string) {
    const at = this.now();
    const row: DeliveryRow = {
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
    };
    await repo.insertDelivery(tx, row);
    await this.queue(tx, row.id, 0, 0);
    return row;
  }

  private async queue(tx: Executor, deliveryId: string, attempt: number, delayMs: number) {
    const data: DeliverJobData = { deliveryId, attempt };
    await this.deps.jobs.send(WEBHOOK_DELIVER_JOB, data, {
      tx,
      retryLimit: 3,
      retryDelay: 5,
      expireInSeconds: Math.ceil(this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS / 1000) + 45,
      ...(delayMs > 0 ? { startAfter: new Date(Date.now() + delayMs) } : {}),
    });
  }

  /** Outbox listener: inside the event's transaction, one delivery per subscribed enabled endpoint. */
  /** The events of one outbox write: one endpoint query and one fan-out mark for all of them. */
  async fanOutMany(tx: Executor, events: RecordedEvent[]) {
    if (events.length === 1) return this.fanOut(tx, events[0]!);
    if (events.length === 0) return;
    const endpoints = await repo.enabledEndpointsOf(tx, [...new Set(events.map((e) => e.organizationId))]);
    for (const event of events) {
      for (const e of endpoints) {
        if (e.organization_id !== event.organizationId) continue;
        if (e.event_types.length > 0 && !e.event_types.includes(event.type)) continue;
        await this.createDelivery(tx, event.organizationId, e.id, event.id, event.type);
      }
    }
    await repo.markFannedOut(
      tx,
      events.map((e) => e.id),
    );
  }

  async fanOut(tx: Executor, event: RecordedEvent) {
    const endpoints = await repo.subscribers(tx, event.organizationId, event.type);
    for (const e of endpoints) await this.createDelivery(tx, event.organizationId, e.id, event.id, event.type);
    await tx
      .updateTable('events')
      .set({ fanned_out_at: event.createdAt } as never)
      .where('id', '=', event.id)
      .execute();
  }

  /** The delivery job: one attempt, then the outcome, the log entry and the next retry in one transaction. */
  async deliver(data: DeliverJobData): Promise<string> {
    const delivery = await repo.getDelivery(this.db, null, data.deliveryId);
    if (!delivery || delivery.status !== 'pending' || delivery.attempt_count !== data.attempt) return 'stale';
    const endpoint = await repo.getEndpoint(this.db, delivery.organization_id, delivery.endpoint_id);
    if (!endpoint) return 'stale';
    if (!endpoint.enabled && delivery.event_type !== 'webhook_endpoint.test') {
      // waits until the endpoint is enabled again (update() queues it then)
      await this.db.updateTable('webhook_deliveries').set({ next_attempt_at: null }).where('id', '=', delivery.id).execute();
      return 'endpoint_disabled';
    }
    const event = await repo.getEvent(this.db, delivery.event_id);
    if (!event) return 'stale';
    const payload: Record<string, unknown> = {
      id: event.id,
      type: event.type,
      createdAt: new Date(event.created_at).toISOString(),
      organizationId: event.organization_id,
      data: event.data,
    };
    if (event.sequence !== null) payload.sequence = event.sequence;
    const body = JSON.stringify(payload);
    const at = this.now();
    const secrets = [this.deps.encryptor.decrypt(endpoint.secret_enc, aad(endpoint.id))];
    if (endpoint.previous_secret_enc && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > at)
      secrets.push(this.deps.encryptor.decrypt(endpoint.previous_secret_enc, aad(endpoint.id)));
    const signature = secrets.map((s) => new Webhook(s).sign(event.id, at, body)).join(' ');
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const release = await this.slots.acquire(endpoint.id);
    let result: Awaited<ReturnType<typeof postSigned>>;
    try {
      result = await postSigned(this.client, endpoint.url, body, headers, this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS);
    } finally {
      release();
    }
    const outcome = await this.record(delivery, endpoint, result);
    if (outcome !== 'stale') metricsOf(this.deps).webhookDelivery(outcome === 'pending' ? 'retry' : outcome, result.errorClass);
    return outcome;
  }

  private retryDelay(attemptNo: number, result: { statusCode: number | null; errorClass: string | null; headers: Record<string, string> }) {
    const scale = this.deps.config.env.SERVICE_WEBHOOK_RETRY_DELAY_PERCENT / 100;
    const base = (RETRY_SCHEDULE_MS[attemptNo - 1] ?? 0) * scale;
    let delay = base * (0.8 + Math.random() * 0.4);
    if (result.errorClass === 'timeout' || result.statusCode === 429) delay = Math.max(delay, 60_000 * scale);
    if (result.statusCode === 429 || result.statusCode === 503) {
      const raw = result.headers['retry-after'];
      let afterMs = NaN;
      if (raw && /^\d+$/.test(raw.trim())) afterMs = Number(raw.trim()) * 1000 * scale;
      else if (raw) afterMs = (Date.parse(raw) - Date.now()) * scale;
      if (Number.isFinite(afterMs)) delay = Math.min(Math.max(afterMs, delay), 2 * delay);
    }
    return Math.round(delay);
  }

  private async record(delivery: DeliveryRow, endpoint: EndpointRow, result: Awaited<ReturnType<typeof postSigned>>): Promise<string> {
    const at = this.now();
    const attemptNo = delivery.attempt_count + 1;
    const ok = result.errorClass === null;
    const gone = result.statusCode === 410;
    const aborted = result.headers['webhook-delivery']?.toLowerCase() === 'abort-message';
    const retriesLeft = attemptNo <= RETRY_SCHEDULE_MS.length;
    const retry = !ok && !gone && !aborted && retriesLeft;
    const delayMs = retry ? this.retryDelay(attemptNo, result) : 0;
    const nextAt = retry ? new Date(at.getTime() + delayMs) : null;
    const outcome = ok ? 'delivered' : retry ? 'pending' : 'failed';
    const lastError = ok
      ? null
      : gone
        ? 'gone: the endpoint answered 410 and was disabled'
        : aborted
          ? 'aborted by the receiver (webhook-delivery: abort-message)'
          : `${result.errorClass}${result.statusCode ? ` ${result.statusCode}` : ''}`;
    return this.db.transaction().execute(async (tx) => {
      const updated = await tx
        .updateTable('webhook_deliveries')
        .set({
          status: outcome,
          attempt_count: attemptNo,
          next_attempt_at: nextAt,
          last_status_code: result.statusCode,
          last_error: lastError,
          delivered_at: ok ? at : null,
          updated_at: at,
        })
        .where('id', '=', delivery.id)
        .where('attempt_count', '=', delivery.attempt_count)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return 'stale';
      await tx
        .insertInto('webhook_attempts')
        .values({
          id: newId('wat'),
          delivery_id: delivery.id,
          attempt: attemptNo,
          status_code: result.statusCode,
          duration_ms: result.durationMs,
          response_excerpt: result.excerpt,
          error_class: aborted ? 'aborted' : result.errorClass,
          next_retry_at: nextAt,
          created_at: at,
        })
        .execute();
      if (delivery.event_type !== 'webhook_endpoint.test') await this.trackHealth(tx, endpoint, ok, gone, at);
      if (retry) await this.queue(tx, delivery.id, attemptNo, delayMs);
      return outcome;
    });
  }

  /** 410 disables at once; failures without any success for the configured time disable too. */
  private async trackHealth(tx: Executor, endpoint: EndpointRow, ok: boolean, gone: boolean, at: Date) {
    if (ok) {
      if (endpoint.failing_since)
        await tx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', endpoint.id).execute();
      return;
    }
    const current = await tx
      .selectFrom('webhook_endpoints')
      .select(['failing_since', 'enabled'])
      .where('id', '=', endpoint.id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return;
    const failingSince = current.failing_since ?? at;
    const limitMs = this.deps.config.env.SERVICE_WEBHOOK_DISABLE_AFTER_HOURS * 3600_000;
    const reason = gone ? 'gone' : at.getTime() - failingSince.getTime() >= limitMs ? 'failing' : null;
    await tx
      .updateTable('webhook_endpoints')
      .set({
        failing_since: failingSince,
        ...(reason && current.enabled ? { enabled: false, disabled_reason: reason, updated_at: at } : {}),
      })
      .where('id', '=', endpoint.id)
      .execute();
  }

  /**
   * Safety net for the outbox: fans out events whose fan-out did not happen with their change (an event
   * recorded by a process without the webhooks listener, or a fan-out that failed). Each event is claimed
   * under a row lock, so concurrent sweeps never create two deliveries for one endpoint.
   */
  async sweep(olderThanMs = 5_000, limit = 500): Promise<number> {
    const cutoff = new Date(this.now().getTime() - olderThanMs);
    const ids = await this.db
      .selectFrom('events')
      .select('id')
      .where('fanned_out_at', 'is', null)
      .where('created_at', '<=', cutoff)
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    let done = 0;
    for (const { id } of ids) {
      const swept = await this.db.transaction().execute(async (tx) => {
        const e = await tx
          .selectFrom('events')
          .selectAll()
          .where('id', '=', id)
          .where('fanned_out_at', 'is', null)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (!e) return false;
        await this.fanOut(tx, {
          id: e.id,
          organizationId: e.organization_id,
          type: e.type as RecordedEvent['type'],
          data: e.data,
          sequence: e.sequence,
          createdAt: new Date(e.created_at),
        });
        return true;
      });
      if (swept) done++;
    }
    return done;
  }

  /** Deletes deliveries (and their attempts) older than the retention. */
  async prune(): Promise<number> {
    const cutoff = new Date(this.now().getTime() - this.deps.config.env.SERVICE_WEBHOOK_RETENTION_DAYS * 86_400_000);
    const r = await this.db
      .deleteFrom('webhook_deliveries')
      .where('created_at', '<', cutoff)
      .where('status', '!=', 'pending')
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
