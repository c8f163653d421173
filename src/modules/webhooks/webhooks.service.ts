import { randomBytes } from 'node:crypto';
import { decodeCursor, page } from '../../http/pagination.js';
import { AppError } from '../../platform/errors.js';
import { GuardedFetchError, type GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import { secretAad } from './webhooks.delivery.js';
import type { WebhookFanOut } from './webhooks.fanout.js';
import { type AttemptRow, type DeliveryRow, type EndpointRow, webhooksRepository as repo } from './webhooks.repository.js';
import { type CreateT, ENDPOINT_ID_PREFIX, type UpdateT, type WebhookDeliveryT, type WebhookEndpointT } from './webhooks.schemas.js';
import { webhookDeliveryRepository as deliveryRepo } from './webhooks-delivery.repository.js';

const ROTATION_OVERLAP_MS = 24 * 3600_000;
const RECOVER_MAX_MS = 14 * 24 * 3600_000;

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const toEndpoint = (r: EndpointRow): WebhookEndpointT => ({
  webhookEndpointId: r.id,
  organizationId: r.organization_id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types ?? [],
  enabled: r.enabled,
  batchJobEvents: r.batch_job_events,
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

export class WebhooksService {
  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'encryptor' | 'clock'>,
    private readonly client: GuardedHttpClient,
    private readonly fanout: WebhookFanOut,
  ) {}

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
    // what needs no DNS is refused whatever the resolver says (a literal internal address in any
    // spelling, an internal name like localhost. or *.internal, credentials, another scheme)
    const problem = this.client.refuseAtSave(url);
    if (problem)
      throw new AppError('webhook_url_invalid', {
        message: `The webhook URL is not safe for outbound delivery: ${problem.message}.`,
        fields: [{ path: ['url'], source: 'body' }],
      });
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
        batch_job_events: input.batchJobEvents ?? false,
        disabled_reason: null,
        metadata: JSON.stringify(input.metadata ?? {}) as never,
        secret_enc: this.deps.encryptor.encrypt(secret, secretAad(id)),
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
      if (input.batchJobEvents !== undefined) set.batch_job_events = input.batchJobEvents;
      if (input.enabled !== undefined) {
        set.enabled = input.enabled;
        if (input.enabled) {
          set.disabled_reason = null;
          set.failing_since = null;
        }
      }
      const row = (await repo.updateEndpoint(tx, organizationId, id, set as never)) as EndpointRow;
      // re-enabling resumes deliveries that were waiting (due at once)
      if (input.enabled === true && !current.enabled) await deliveryRepo.resumeEndpoint(tx, organizationId, id, new Date());
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
        secret_enc: this.deps.encryptor.encrypt(secret, secretAad(id)),
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
      await deliveryRepo.insertTestEvent(tx, organizationId, eventId, id, at);
      const [delivery] = await this.fanout.createDeliveries(tx, organizationId, [id], eventId, 'webhook_endpoint.test');
      return toDelivery(delivery!, []);
    });
  }

  /** A new delivery of the same event (same webhook-id) to the same endpoint. */
  async redeliver(organizationId: string, deliveryId: string) {
    this.assertWritable();
    return this.db.transaction().execute(async (tx) => {
      const original = await repo.getDelivery(tx, organizationId, deliveryId);
      if (!original)
        throw new AppError('webhook_endpoint_not_found', { message: `No webhook delivery ${deliveryId} in the principal organization.` });
      const [delivery] = await this.fanout.createDeliveries(
        tx,
        organizationId,
        [original.endpoint_id],
        original.event_id,
        original.event_type,
      );
      return toDelivery(delivery!, []);
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
      // the endpoint's row lock orders two recovers of one endpoint: the second sees the first's deliveries
      if (!(await repo.getEndpoint(tx, organizationId, endpointId, true))) this.notFound(endpointId);
      const failed = await repo.failedSince(tx, organizationId, endpointId, since);
      for (const d of failed) await this.fanout.createDeliveries(tx, organizationId, [endpointId], d.event_id, d.event_type);
      return { recovered: failed.length };
    });
  }
}
