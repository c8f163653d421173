/**
 * Runs up to `concurrency` jobs of one queue at once in this process. pg-boss's own work loop waits its
 * polling interval after every fetch (about two fetches a second), whatever it found; this loop
 * instead keeps up to `concurrency` fetched jobs ready for the slots, fetches again as soon as half of
 * them started while the queue has due jobs, and waits the polling interval only once the queue
 * answered empty. Completions
 * are written in batches, off the path that starts new work. Fetches use SKIP LOCKED, so several
 * processes share a queue's due jobs.
 */
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { JobDefinition } from './job-queue.js';

const COMPLETION_FLUSH_MS = 50;

export class FetchLoop {
  private readonly running = new Set<Promise<void>>();
  /** fetched (active in pg-boss) and waiting for a slot; at most `concurrency` */
  private readonly buffer: PgBoss.Job<any>[] = [];
  private readonly done: string[] = [];
  private readonly failed: Array<{ id: string; message: string }> = [];
  private flushing: Promise<void> = Promise.resolve();
  private stopping = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly boss: PgBoss,
    private readonly def: JobDefinition<any>,
    private readonly concurrency: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.flushTimer = setInterval(() => this.flush(), COMPLETION_FLUSH_MS);
    this.flushTimer.unref();
    this.loop = this.run();
  }

  /** Stops fetching, lets fetched jobs finish (up to timeoutMs) and writes their completions. */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    const deadline = Date.now() + timeoutMs;
    while ((this.running.size > 0 || this.buffer.length > 0) && Date.now() < deadline) await this.pause(deadline - Date.now());
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flush();
    await this.flushing;
  }

  private async run(): Promise<void> {
    const idleMs = (this.def.pollingIntervalSeconds ?? 1) * 1000;
    // fetch in batches of at least half the concurrency: a fetch costs about the same for one job or
    // many (pg-boss sorts every due job of the queue), and the buffer keeps slots busy meanwhile
    const minBatch = Math.max(1, Math.ceil(this.concurrency / 2));
    while (!this.stopping) {
      const room = this.concurrency - this.buffer.length;
      const idle = this.running.size === 0 && this.buffer.length === 0;
      if (room < minBatch && !idle) {
        await this.pause(idleMs);
        continue;
      }
      let jobs: PgBoss.Job<any>[] = [];
      try {
        jobs = await this.boss.fetch(this.def.name, { batchSize: room });
      } catch (err) {
        if (this.stopping) break;
        this.logger.warn({ queue: this.def.name, err: (err as Error).message }, 'job fetch failed');
      }
      this.buffer.push(...jobs);
      this.fill();
      // the queue answered empty (or failed): wait the polling interval before asking again
      if (jobs.length === 0) await this.pause(idleMs);
    }
  }

  /** Waits until a job ends, stop is called, or ms pass. */
  private async pause(ms: number): Promise<void> {
    if (this.stopping && this.running.size === 0 && this.buffer.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((r) => {
      this.wake = r;
      timer = setTimeout(r, ms);
    });
    clearTimeout(timer);
    this.wake = null;
  }

  /** Starts buffered jobs while slots are free. */
  private fill(): void {
    while (this.running.size < this.concurrency && this.buffer.length > 0) this.startJob(this.buffer.shift()!);
  }

  private startJob(job: PgBoss.Job<any>): void {
    const p: Promise<void> = (async () => {
      try {
        await this.def.handler(job.data, job);
        this.done.push(job.id);
      } catch (err) {
        this.failed.push({ id: job.id, message: (err as Error)?.message ?? String(err) });
      }
    })().finally(() => {
      this.running.delete(p);
      this.fill();
      this.wake?.();
    });
    this.running.add(p);
  }

  private flush(): void {
    if (this.done.length === 0 && this.failed.length === 0) return;
    const ok = this.done.splice(0);
    const bad = this.failed.splice(0);
    const name = this.def.name;
    this.flushing = this.flushing.then(async () => {
      try {
        if (ok.length > 0) await this.boss.complete(name, ok);
        for (const f of bad) await this.boss.fail(name, f.id, { message: f.message });
      } catch (err) {
        // a job left active is expired by pg-boss and, for publishing, swept by reconciliation
        this.logger.warn({ queue: name, err: (err as Error).message }, 'job completion failed');
      }
    });
  }
}
