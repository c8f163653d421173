/**
 * The delivery job: one signed attempt of one delivery, then its outcome, its log entry, the endpoint's
 * health and the next retry, all in one transaction.
 *
 * Throughput: the worker runs many delivery jobs at once, and their statements are coalesced: the
 * deliveries (with endpoint and event) of the jobs started together are read in one statement, and
 * the successful outcomes of the attempts that ended together are written in one statement (one
 * commit). A job completes only after its outcome is written, so a crash still means "at least once".
 * Connections to a receiver are kept alive (webhooks.sender.ts), and the per-endpoint concurrency
 * limit is a lease in the shared counter store, so it holds across worker processes.
 */
import { Webhook } from 'standardwebhooks';
import type { CounterStore } from '../../platform/counters/index.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { Coalescer } from './webhooks.coalescer.js';
import type { DeliverJobData, WebhookFanOut } from './webhooks.fanout.js';
import { webhooksRepository as repo } from './webhooks.repository.js';
import { DeliveryAgents, postSigned, type SendResult } from './webhooks.sender.js';

/** Retry delays after attempt 1, 2, ... (the Svix schedule, about 27 h in all). */
export const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** a timeout or a 429 waits at least this long */
export const BACKOFF_FLOOR_MS = 60_000;
/** a delivery whose endpoint is at its concurrency limit waits this long for a slot, then goes back to the queue */
const SLOT_WAIT_MS = 250;
const DEFER_MS = 1_000;

export const secretAad = (endpointId: string) => `webhook_endpoint:${endpointId}`;

type Context = Awaited<ReturnType<typeof repo.deliveryContexts>>[number];
type DeliveredRow = Parameters<typeof repo.recordDeliveredMany>[1][number];

/** how often a delivery asks the shared store again for a slot of an endpoint busy in other workers */
const SHARED_SLOT_RETRY_MS = 25;
/** signers of decrypted secrets kept by ciphertext (a rotation writes a new ciphertext, so nothing goes stale) */
const SECRET_CACHE_MAX = 1_000;

/** Per-process limit of deliveries in flight to one endpoint (the shared lease below makes it global). */
class EndpointSlots {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  constructor(private readonly limit: number) {}

  /** A release function, or null when no slot freed up within waitMs. */
  async acquire(key: string, waitMs: number): Promise<(() => void) | null> {
    const deadline = Date.now() + waitMs;
    while ((this.inFlight.get(key) ?? 0) >= this.limit) {
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting.set(key, [
          ...(this.waiting.get(key) ?? []),
          () => {
            clearTimeout(timer);
            resolve();
          },
        ]);
      });
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

/** The delay before the next attempt: schedule with +-20% jitter, floors and Retry-After within [delay, 2 x delay]. */
export function retryDelayMs(
  attemptNo: number,
  result: Pick<SendResult, 'statusCode' | 'errorClass' | 'headers'>,
  percent: number,
  now: number,
) {
  const scale = percent / 100;
  const base = (RETRY_SCHEDULE_MS[attemptNo - 1] ?? 0) * scale;
  let delay = base * (0.8 + Math.random() * 0.4);
  if (result.errorClass === 'timeout' || result.statusCode === 429) delay = Math.max(delay, BACKOFF_FLOOR_MS * scale);
  if (result.statusCode === 429 || result.statusCode === 503) {
    const raw = result.headers['retry-after']?.trim();
    let afterMs = Number.NaN;
    if (raw && /^\d+$/.test(raw)) afterMs = Number(raw) * 1000 * scale;
    else if (raw) afterMs = (Date.parse(raw) - now) * scale;
    if (Number.isFinite(afterMs)) delay = Math.min(Math.max(afterMs, delay), 2 * delay);
  }
  return Math.round(delay);
}

export class WebhookDeliverer {
  private readonly slots: EndpointSlots;
  private readonly agents: DeliveryAgents;
  private readonly signers = new Map<string, Webhook>();
  private readonly contexts: Coalescer<string, Context | null>;
  private readonly delivered: Coalescer<DeliveredRow, boolean>;

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'encryptor' | 'clock' | 'metrics'>,
    private readonly client: GuardedHttpClient,
    private readonly fanout: WebhookFanOut,
  ) {
    this.slots = new EndpointSlots(deps.config.env.SERVICE_WEBHOOK_ENDPOINT_CONCURRENCY);
    this.agents = new DeliveryAgents(deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS);
    this.contexts = new Coalescer(async (ids) => {
      const rows = await repo.deliveryContexts(this.db, [...new Set(ids)]);
      const byId = new Map(rows.map((r) => [r.delivery_id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    });
    this.delivered = new Coalescer(async (rows) => {
      // two jobs of one delivery in one batch (a reclaimed job and its original): the first records
      const first = new Map<string, DeliveredRow>();
      for (const r of rows) if (!first.has(r.deliveryId)) first.set(r.deliveryId, r);
      const recorded = await repo.recordDeliveredMany(this.db, [...first.values()]);
      return rows.map((r) => first.get(r.deliveryId) === r && recorded.has(r.deliveryId));
    });
  }

  private get db() {
    return this.deps.database.db;
  }

  /** the shared store's key of an endpoint's delivery leases */
  private static slotKey(endpointId: string) {
    return `webhooks:endpoint-slots:${endpointId}`;
  }

  /** Closes the kept-alive connections (the worker is stopping). */
  async close() {
    await this.agents.close();
  }

  async deliver(data: DeliverJobData): Promise<string> {
    const c = await this.contexts.submit(data.deliveryId);
    if (!c || c.status !== 'pending' || c.attempt_count !== data.attempt) return 'stale';
    if (!c.enabled && c.event_type !== 'webhook_endpoint.test') {
      // waits until the endpoint is enabled again (re-enabling queues it then)
      await this.db.updateTable('webhook_deliveries').set({ next_attempt_at: null }).where('id', '=', c.delivery_id).execute();
      return 'endpoint_disabled';
    }
    // a slow endpoint keeps at most its limit of job slots busy: the others go back to the queue
    const release = await this.acquireSlot(c.endpoint_id);
    if (!release) {
      await this.fanout.queue(this.db, [data], DEFER_MS);
      return 'deferred';
    }
    let result: SendResult;
    try {
      const { body, headers } = this.signed(c);
      result = await postSigned(this.client, this.agents, c.url, body, headers, this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS);
    } finally {
      release();
    }
    const outcome = await this.record(c, result);
    if (outcome !== 'stale') this.deps.metrics.webhookDelivery(outcome === 'pending' ? 'retry' : outcome, result.errorClass);
    return outcome;
  }

  /**
   * One of the endpoint's slots: first this process's (waiting in memory), then a lease in the shared
   * store (Redis when configured), which holds the limit across worker processes; the lease expires
   * after a timeout and a margin, so a crashed worker frees its slots. Null when none freed up in time.
   */
  private async acquireSlot(endpointId: string): Promise<(() => void) | null> {
    const deadline = Date.now() + SLOT_WAIT_MS;
    const local = await this.slots.acquire(endpointId, SLOT_WAIT_MS);
    if (!local) return null;
    const store: CounterStore = this.deps.counters.shared;
    const key = WebhookDeliverer.slotKey(endpointId);
    const limit = this.deps.config.env.SERVICE_WEBHOOK_ENDPOINT_CONCURRENCY;
    const leaseMs = this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS + 30_000;
    for (;;) {
      let token: string | null;
      try {
        token = await store.acquireSlot(key, limit, leaseMs);
      } catch {
        // the shared store is down: the per-process limit still holds, deliveries go on
        return local;
      }
      if (token) {
        return () => {
          local();
          store.releaseSlot(key, token).catch(() => undefined);
        };
      }
      if (Date.now() + SHARED_SLOT_RETRY_MS > deadline) {
        local();
        return null;
      }
      await new Promise((r) => setTimeout(r, SHARED_SLOT_RETRY_MS));
    }
  }

  /** The signer of one encrypted secret, kept by its ciphertext: a rotation writes a new one, read with the next delivery. */
  private signer(enc: string, endpointId: string) {
    let signer = this.signers.get(enc);
    if (signer === undefined) {
      signer = new Webhook(this.deps.encryptor.decrypt(enc, secretAad(endpointId)));
      if (this.signers.size >= SECRET_CACHE_MAX) this.signers.clear();
      this.signers.set(enc, signer);
    }
    return signer;
  }

  private signed(c: Context) {
    const payload: Record<string, unknown> = {
      id: c.event_id,
      type: c.type,
      createdAt: new Date(c.event_created_at).toISOString(),
      organizationId: c.organization_id,
      data: c.data,
    };
    if (c.sequence !== null) payload.sequence = c.sequence;
    const body = JSON.stringify(payload);
    const at = this.deps.clock.now();
    const signers = [this.signer(c.secret_enc, c.endpoint_id)];
    if (c.previous_secret_enc && c.previous_secret_expires_at && c.previous_secret_expires_at > at)
      signers.push(this.signer(c.previous_secret_enc, c.endpoint_id));
    const signature = signers.map((s) => s.sign(c.event_id, at, body)).join(' ');
    const headers = {
      'webhook-id': c.event_id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    return { body, headers };
  }

  private async record(c: Context, result: SendResult): Promise<string> {
    const at = this.deps.clock.now();
    const attemptNo = c.attempt_count + 1;
    const ok = result.errorClass === null;
    const gone = result.statusCode === 410;
    const aborted = result.headers['webhook-delivery']?.toLowerCase() === 'abort-message';
    const retriesLeft = attemptNo <= RETRY_SCHEDULE_MS.length;
    const retry = !ok && !gone && !aborted && retriesLeft;
    const delayMs = retry ? retryDelayMs(attemptNo, result, this.deps.config.env.SERVICE_WEBHOOK_RETRY_DELAY_PERCENT, at.getTime()) : 0;
    const nextAt = retry ? new Date(at.getTime() + delayMs) : null;
    const outcome = ok ? 'delivered' : retry ? 'pending' : 'failed';
    const lastError = ok
      ? null
      : gone
        ? 'gone: the endpoint answered 410 and was disabled'
        : aborted
          ? 'aborted by the receiver (webhook-delivery: abort-message)'
          : `${result.errorClass}${result.statusCode ? ` ${result.statusCode}` : ''}`;
    if (ok && !c.failing_since && c.event_type !== 'webhook_endpoint.test') {
      // the common case: one statement for the attempts that ended together
      const recorded = await this.delivered.submit({
        deliveryId: c.delivery_id,
        previousAttempts: c.attempt_count,
        attemptId: newId('wat'),
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        excerpt: result.excerpt,
        at,
      });
      return recorded ? outcome : 'stale';
    }
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
        .where('id', '=', c.delivery_id)
        .where('attempt_count', '=', c.attempt_count)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return 'stale';
      await tx
        .insertInto('webhook_attempts')
        .values({
          id: newId('wat'),
          delivery_id: c.delivery_id,
          attempt: attemptNo,
          status_code: result.statusCode,
          duration_ms: result.durationMs,
          response_excerpt: result.excerpt,
          error_class: aborted ? 'aborted' : result.errorClass,
          next_retry_at: nextAt,
          created_at: at,
        })
        .execute();
      if (c.event_type !== 'webhook_endpoint.test') await this.trackHealth(tx, c, ok, gone, at);
      if (retry) await this.fanout.queue(tx, [{ deliveryId: c.delivery_id, attempt: attemptNo }], delayMs);
      return outcome;
    });
  }

  /** 410 disables at once; failures without any success for the configured time disable too. */
  private async trackHealth(tx: Executor, c: Context, ok: boolean, gone: boolean, at: Date) {
    if (ok) {
      // the common case costs nothing: only a recovering endpoint is written
      if (c.failing_since) await tx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', c.endpoint_id).execute();
      return;
    }
    const current = await tx
      .selectFrom('webhook_endpoints')
      .select(['failing_since', 'enabled'])
      .where('id', '=', c.endpoint_id)
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
      .where('id', '=', c.endpoint_id)
      .execute();
  }
}
