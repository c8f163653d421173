/**
 * One attempt of one claimed delivery: signed, sent, then its outcome, its log entry, the endpoint's
 * health and the next retry time, all in one transaction (or, for the common success, one coalesced
 * statement with the successes that ended together).
 *
 * Deliveries are claimed from their table by the worker's claim loop (webhooks.claim-loop.ts), which
 * leases them: a claimed delivery is not claimable again before its lease ends (a timeout and a margin
 * later), so two sends of one delivery never run at once, and a worker killed mid-send leaves a delivery
 * that is claimed again once its lease ends and sent with the same webhook-id (at least once). An outcome
 * is recorded only if the delivery's attempt count is still the one claimed, so a late duplicate attempt
 * never records twice. Connections to a receiver are kept alive (webhooks.sender.ts), and the per-endpoint
 * concurrency limit is a lease in the shared counter store, so it holds across worker processes.
 */
import { createHmac } from 'node:crypto';
import type { CounterStore } from '../../platform/counters/index.js';
import type { GuardedHttpClient } from '../../platform/http-client/guarded-client.js';
import { newId } from '../../platform/ids.js';
import type { AppDeps } from '../app-deps.js';
import type { Executor } from '../database.js';
import { Coalescer } from './webhooks.coalescer.js';
import { DeliveryAgents, postSigned, type SendResult } from './webhooks.sender.js';
import { type DeliveredRow, type DeliveryContext, webhookDeliveryRepository as repo } from './webhooks-delivery.repository.js';

/** Retry delays after attempt 1, 2, ... (the Svix schedule, about 27 h in all). */
const RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** a timeout or a 429 waits at least this long */
const BACKOFF_FLOOR_MS = 60_000;
/** a claimed delivery whose endpoint is at its concurrency limit waits this long for a slot, then is given back */
export const SLOT_WAIT_MS = 1_000;
/** ... claimable again this much later */
const DEFER_MS = 1_000;
/** a claim's lease outlasts an attempt (its timeout) by this margin: the slot wait and the outcome write */
const LEASE_MARGIN_MS = 30_000;

export const secretAad = (endpointId: string) => `webhook_endpoint:${endpointId}`;

/** how often a delivery asks the shared store again for a slot of an endpoint busy in other workers */
const SHARED_SLOT_RETRY_MS = 25;
/** signing keys of decrypted secrets kept by ciphertext (a rotation writes a new ciphertext, so nothing goes stale) */
const SECRET_CACHE_MAX = 1_000;

/**
 * Standard Webhooks signature (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64
 * part of `whsec_...`), with node:crypto: the standardwebhooks library signs in JavaScript (fast-sha256),
 * several times the CPU per delivery; receivers and the tests verify with the library.
 */
class Signer {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  }
  sign(id: string, timestampSeconds: number, body: string) {
    return `v1,${createHmac('sha256', this.key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
  }
}

/** Per-process limit of deliveries in flight to one endpoint (the shared lease below makes it global). */
class EndpointSlots {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  constructor(readonly limit: number) {}

  /** whether a delivery to the endpoint would get a slot of this process now */
  free(key: string): boolean {
    return (this.inFlight.get(key) ?? 0) < this.limit;
  }

  /** endpoints whose slots in this process are all taken */
  full(): string[] {
    const out: string[] = [];
    for (const [key, n] of this.inFlight) if (n >= this.limit) out.push(key);
    return out;
  }

  /** A release function, or null when no slot freed up within waitMs. */
  async acquire(key: string, waitMs: number): Promise<(() => void) | null> {
    const deadline = Date.now() + waitMs;
    while ((this.inFlight.get(key) ?? 0) >= this.limit) {
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        let queue = this.waiting.get(key);
        if (!queue) {
          queue = [];
          this.waiting.set(key, queue);
        }
        queue.push(() => {
          clearTimeout(timer);
          resolve();
        });
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
function retryDelayMs(attemptNo: number, result: Pick<SendResult, 'statusCode' | 'errorClass' | 'headers'>, percent: number, now: number) {
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
  private readonly signers = new Map<string, Signer>();
  private readonly delivered: Coalescer<DeliveredRow, boolean>;
  private readonly deferred: Coalescer<DeliveryContext, null>;
  /** deliveries this process is sending (a lease that ended under a stalled process is not sent twice from here) */
  private readonly sending = new Set<string>();

  constructor(
    private readonly deps: Pick<AppDeps, 'config' | 'database' | 'counters' | 'encryptor' | 'clock' | 'metrics'>,
    private readonly client: GuardedHttpClient,
  ) {
    this.slots = new EndpointSlots(deps.config.env.SERVICE_WEBHOOK_ENDPOINT_CONCURRENCY);
    this.agents = new DeliveryAgents(deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS);
    this.delivered = new Coalescer(async (rows) => {
      // two attempts of one delivery in one batch (a lease that ended while its outcome waited): the first records
      const first = new Map<string, DeliveredRow>();
      for (const r of rows) if (!first.has(r.deliveryId)) first.set(r.deliveryId, r);
      const recorded = await repo.recordDeliveredMany(this.db, [...first.values()]);
      return rows.map((r) => first.get(r.deliveryId) === r && recorded.has(r.deliveryId));
    });
    this.deferred = new Coalescer(async (rows) => {
      await repo.release(
        this.db,
        rows.map((c) => ({ organizationId: c.organization_id, deliveryId: c.delivery_id, previousAttempts: c.attempt_count })),
        new Date(Date.now() + DEFER_MS),
      );
      return rows.map(() => null);
    });
  }

  private get db() {
    return this.deps.database.db;
  }

  /** how long a claim is leased: an attempt's timeout and a margin */
  get leaseMs() {
    return this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
  }

  /**
   * Claims up to `limit` due deliveries for this process. The queue's times are the process's real time
   * (like a queue's start-after), so a settable clock in tests moves the log's times, not the queue.
   */
  async claim(limit: number): Promise<DeliveryContext[]> {
    const now = Date.now();
    const rows = await repo.claimDue(this.db, new Date(now), new Date(now + this.leaseMs), limit, this.slots.full());
    return rows.filter((r) => !this.sending.has(r.delivery_id));
  }

  /** Whether a delivery to the endpoint would get one of this process's slots for it at once. */
  hasFreeSlot(endpointId: string): boolean {
    return this.slots.free(endpointId);
  }

  /** A claimed delivery given back unattempted (it waited too long for its endpoint, or the worker stops): claimable again soon. */
  async giveBack(c: DeliveryContext): Promise<void> {
    await this.deferred.submit(c);
  }

  /** the shared store's key of an endpoint's delivery leases */
  private static slotKey(endpointId: string) {
    return `webhooks:endpoint-slots:${endpointId}`;
  }

  /** Closes the kept-alive connections (the worker is stopping). */
  async close() {
    await this.agents.close();
  }

  /**
   * One attempt of a claimed delivery. `sent` resolves once the request is over (the claim loop's
   * slot), the returned promise once its outcome is recorded.
   */
  async deliver(c: DeliveryContext, sent: () => void = () => undefined): Promise<string> {
    this.sending.add(c.delivery_id);
    let result: SendResult;
    try {
      if (c.status !== 'pending') return 'stale';
      if (!c.enabled && c.event_type !== 'webhook_endpoint.test') {
        // waits until the endpoint is enabled again (re-enabling makes it due then)
        await repo.park(this.db, c.organization_id, c.delivery_id);
        return 'endpoint_disabled';
      }
      // a slow endpoint keeps at most its limit of slots busy: the others are given back for later
      const release = await this.acquireSlot(c.endpoint_id);
      if (!release) {
        await this.deferred.submit(c);
        return 'deferred';
      }
      try {
        const { body, headers } = this.signed(c);
        result = await postSigned(this.client, this.agents, c.url, body, headers, this.deps.config.env.SERVICE_WEBHOOK_TIMEOUT_MS);
      } finally {
        release();
      }
    } finally {
      this.sending.delete(c.delivery_id);
      sent();
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
      signer = new Signer(this.deps.encryptor.decrypt(enc, secretAad(endpointId)));
      if (this.signers.size >= SECRET_CACHE_MAX) this.signers.clear();
      this.signers.set(enc, signer);
    }
    return signer;
  }

  private signed(c: DeliveryContext) {
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
    const seconds = Math.floor(at.getTime() / 1000);
    let signature = this.signer(c.secret_enc, c.endpoint_id).sign(c.event_id, seconds, body);
    if (c.previous_secret_enc && c.previous_secret_expires_at && c.previous_secret_expires_at > at)
      signature += ` ${this.signer(c.previous_secret_enc, c.endpoint_id).sign(c.event_id, seconds, body)}`;
    const headers = {
      'webhook-id': c.event_id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': signature,
    };
    return { body, headers };
  }

  private async record(c: DeliveryContext, result: SendResult): Promise<string> {
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
      const recorded = await repo.recordAttempt(tx, {
        organizationId: c.organization_id,
        deliveryId: c.delivery_id,
        previousAttempts: c.attempt_count,
        status: outcome,
        nextAttemptAt: nextAt,
        // the queue's time is real time, like a queue's start-after (see claim)
        claimAt: retry ? new Date(Date.now() + delayMs) : null,
        statusCode: result.statusCode,
        lastError,
        at,
        attempt: {
          id: newId('wat'),
          durationMs: result.durationMs,
          excerpt: result.excerpt,
          errorClass: aborted ? 'aborted' : result.errorClass,
        },
      });
      if (!recorded) return 'stale';
      if (c.event_type !== 'webhook_endpoint.test') await this.trackHealth(tx, c, ok, gone, at);
      return outcome;
    });
  }

  /** 410 disables at once; failures without any success for the configured time disable too. */
  private async trackHealth(tx: Executor, c: DeliveryContext, ok: boolean, gone: boolean, at: Date) {
    if (ok) {
      // the common case costs nothing: only a recovering endpoint is written
      if (c.failing_since) await repo.clearFailing(tx, c.organization_id, c.endpoint_id);
      return;
    }
    const current = await repo.endpointHealthForUpdate(tx, c.organization_id, c.endpoint_id);
    if (!current) return;
    const failingSince = current.failing_since ?? at;
    const limitMs = this.deps.config.env.SERVICE_WEBHOOK_DISABLE_AFTER_HOURS * 3600_000;
    const reason = gone ? 'gone' : at.getTime() - failingSince.getTime() >= limitMs ? 'failing' : null;
    await repo.markFailing(tx, c.organization_id, c.endpoint_id, failingSince, reason && current.enabled ? { reason, at } : null);
  }
}
