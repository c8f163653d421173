/**
 * The worker's delivery loop: claims due deliveries from their table in batches (FOR UPDATE SKIP
 * LOCKED, each leased to this process) and sends them, up to SERVICE_WEBHOOK_WORKER_CONCURRENCY at
 * once. A delivery costs no queue job: its row is the queue (`claim_at`: due, a retry's time, or a
 * lease's end), so first attempts, retries and deliveries whose worker died all come back here.
 */
import type { Logger } from 'pino';
import type { WorkerLoop } from '../../platform/queue/job-queue.js';
import type { WebhookDeliverer } from './webhooks.delivery.js';

/** how long the loop waits before asking again when nothing was due */
const IDLE_POLL_MS = 100;
/** after a failed claim (the database is away) */
const ERROR_PAUSE_MS = 1_000;
/** while sends are in flight, a claim waits for this share of the slots to be free (or BATCH_WAIT_MS), so claims carry several rows */
const BATCH_SHARE = 4;
const BATCH_WAIT_MS = 5;

export class DeliveryClaimLoop implements WorkerLoop {
  readonly name = 'webhooks.claim';
  private running = false;
  private done: Promise<void> | null = null;
  /** claimed deliveries not yet sent (waiting for an endpoint slot or in their request) */
  private sending = 0;
  /** claimed deliveries whose outcome is not yet written */
  private open = 0;
  private wake: (() => void) | null = null;
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

  /** Stops claiming, then waits (at most timeoutMs) for the attempts in flight to record their outcomes. */
  async stop(timeoutMs: number) {
    this.running = false;
    this.wake?.();
    await this.done;
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

  /** the slots free for new claims: sends in flight, and outcomes not yet written (bounded, so a slow database holds claims back) */
  private room() {
    return Math.min(this.concurrency - this.sending, 4 * this.concurrency - this.open);
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
      let claimed: Awaited<ReturnType<WebhookDeliverer['claim']>>;
      try {
        claimed = await this.deliverer.claim(room);
      } catch (err) {
        this.logger?.warn({ err: (err as Error).message }, 'webhook delivery claim failed');
        await this.sleep(ERROR_PAUSE_MS);
        continue;
      }
      for (const c of claimed) this.launch(c);
      if (claimed.length < room && this.running) await this.sleep(IDLE_POLL_MS);
    }
  }

  private launch(c: Awaited<ReturnType<WebhookDeliverer['claim']>>[number]) {
    this.sending++;
    this.open++;
    let sent = false;
    const freed = () => {
      if (sent) return;
      sent = true;
      this.sending--;
      // a slot freed: a loop waiting for room claims again
      if (this.room() >= this.concurrency / BATCH_SHARE) this.wake?.();
    };
    const p = this.deliverer
      .deliver(c, freed)
      .catch((err) => {
        // the outcome was not written: the delivery is claimed again once its lease ends
        this.logger?.warn({ err: (err as Error).message, deliveryId: c.delivery_id }, 'webhook delivery outcome not recorded');
      })
      .finally(() => {
        freed();
        this.open--;
        if (this.room() > 0 && this.sending === 0) this.wake?.();
        this.outcomes.delete(p);
      });
    this.outcomes.add(p);
  }
}
