/**
 * The worker's delivery loop: claims due deliveries from their table in batches (FOR UPDATE SKIP
 * LOCKED, each leased to this process) and sends them, up to SERVICE_WEBHOOK_WORKER_CONCURRENCY at
 * once. A delivery costs no queue job: its row is the queue (`claim_at`: due or a retry's time;
 * `leased_until`: a claim's lease), so first attempts, retries and deliveries whose worker died all come
 * back here.
 *
 * Claims run ahead of the sends: up to one claim's worth of deliveries (as many as the sends at once)
 * waits here, so a send that ends starts the next at once instead of waiting for a claim's round trip,
 * and a claim carries many rows instead of the few sends that ended during the one before (claims one at
 * a time, each sized by the slots just freed, bounded the rate at about 14 rows a claim). A claimed
 * delivery starts when its endpoint has a free slot in this process; one that waited for it longer than
 * SLOT_WAIT_MS is given back (claimable again a second later), as a send that waits for its slot is.
 */
import type { Logger } from 'pino';
import type { WorkerLoop } from '../../platform/queue/job-queue.js';
import { SLOT_WAIT_MS, type WebhookDeliverer } from './webhooks.delivery.js';
import type { DeliveryContext } from './webhooks-delivery.repository.js';

/** how long the loop waits before asking again when nothing was due */
const IDLE_POLL_MS = 100;
/** after a failed claim (the database is away) */
const ERROR_PAUSE_MS = 1_000;
/** a claim waits until this share of the room ahead is free (or BATCH_WAIT_MS), so claims carry several rows */
const BATCH_SHARE = 4;
const BATCH_WAIT_MS = 5;
/** a claimed delivery whose endpoint had no free slot is looked at again this often */
const RECHECK_MS = 20;

export class DeliveryClaimLoop implements WorkerLoop {
  readonly name = 'webhooks.claim';
  private running = false;
  private done: Promise<void> | null = null;
  /** claimed deliveries not yet started, oldest claim first */
  private readonly ready: Array<{ c: DeliveryContext; claimedAt: number }> = [];
  /** started deliveries whose request is not over (waiting for the shared slot or in their request) */
  private sending = 0;
  /** started deliveries whose outcome is not yet written */
  private open = 0;
  private wake: (() => void) | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private readonly outcomes = new Set<Promise<unknown>>();

  constructor(
    private readonly deliverer: WebhookDeliverer,
    private readonly concurrency: number,
    private readonly logger?: Logger,
  ) {}

  start() {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  /**
   * Stops claiming, gives back the claimed deliveries not started, then waits (at most timeoutMs) for
   * the attempts in flight to record their outcomes.
   */
  async stop(timeoutMs: number) {
    this.running = false;
    this.wake?.();
    await this.done;
    if (this.recheck) clearTimeout(this.recheck);
    for (const { c } of this.ready.splice(0)) this.track(this.deliverer.giveBack(c), c.delivery_id);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.outcomes]),
      new Promise((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /**
   * Rows a claim may take now: the sends at once and as many again waiting here, and outcomes not yet
   * written bounded (so a slow database holds claims back).
   */
  private room() {
    const held = this.ready.length + this.sending;
    return Math.min(2 * this.concurrency - held, 4 * this.concurrency - this.open - this.ready.length);
  }

  private async run() {
    while (this.running) {
      let room = this.room();
      if (room <= 0) {
        await this.sleep(1_000);
        continue;
      }
      if (this.sending > 0 && room < this.concurrency / BATCH_SHARE) {
        await this.sleep(BATCH_WAIT_MS);
        room = this.room();
        if (room <= 0 || !this.running) continue;
      }
      let claimed: DeliveryContext[];
      try {
        claimed = await this.deliverer.claim(room);
      } catch (err) {
        this.logger?.warn({ err: (err as Error).message }, 'webhook delivery claim failed');
        await this.sleep(ERROR_PAUSE_MS);
        continue;
      }
      const at = Date.now();
      for (const c of claimed) this.ready.push({ c, claimedAt: at });
      this.pump();
      if (claimed.length < room && this.running) await this.sleep(IDLE_POLL_MS);
    }
  }

  /**
   * Starts claimed deliveries while sends are free, oldest claim first, skipping those whose endpoint has
   * no free slot here (they keep their place); gives back those that waited past SLOT_WAIT_MS.
   */
  private pump() {
    const now = Date.now();
    let i = 0;
    while (i < this.ready.length) {
      const { c, claimedAt } = this.ready[i]!;
      if (now - claimedAt > SLOT_WAIT_MS) {
        this.ready.splice(i, 1);
        this.track(this.deliverer.giveBack(c), c.delivery_id);
        continue;
      }
      if (this.sending >= this.concurrency) break;
      if (!this.deliverer.hasFreeSlot(c.endpoint_id)) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      this.launch(c);
    }
    // deliveries left for a busy endpoint: looked at again when a send ends, or after a while
    if (this.ready.length > 0 && this.sending < this.concurrency && !this.recheck)
      this.recheck = setTimeout(() => {
        this.recheck = null;
        this.pump();
      }, RECHECK_MS);
  }

  private track(p: Promise<unknown>, deliveryId?: string) {
    const tracked = p
      .catch((err) => {
        // the outcome was not written: the delivery is claimed again once its lease ends
        this.logger?.warn({ err: (err as Error).message, deliveryId }, 'webhook delivery outcome not recorded');
      })
      .finally(() => this.outcomes.delete(tracked));
    this.outcomes.add(tracked);
  }

  private launch(c: DeliveryContext) {
    this.sending++;
    this.open++;
    let sent = false;
    const freed = () => {
      if (sent) return;
      sent = true;
      this.sending--;
      this.pump();
      // room freed: a loop waiting for it claims again
      if (this.room() >= this.concurrency / BATCH_SHARE) this.wake?.();
    };
    this.track(
      this.deliverer.deliver(c, freed).finally(() => {
        freed();
        this.open--;
        if (this.room() > 0 && this.sending === 0) this.wake?.();
      }),
      c.delivery_id,
    );
  }
}
