/**
 * Runs up to `concurrency` jobs of one queue at once in this process. pg-boss's own work loop waits its
 * polling interval after every fetch (about two fetches a second), whatever it found; this loop
 * instead keeps up to `maxHeld` fetched jobs ready for the slots, fetches again as soon as there is
 * room for a batch while the queue has due jobs, and waits the polling interval only once the queue
 * answered empty. Completions are written in batches, off the path that starts new work. Fetches use
 * SKIP LOCKED, so several processes share a queue's due jobs.
 *
 * With `leadMs`, a fetch also takes jobs that fall due within that time and holds each until its
 * startAfter (never earlier), so the queue's work (fetch, mark active) is done before the due time
 * instead of competing with the jobs themselves. A held job is active in pg-boss like a running one:
 * if the process dies, the job expires and its owner's recovery (publishing: the reconciliation sweep)
 * takes over as for a crash mid-job.
 */
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { JobDefinition } from './job-queue.js';

const COMPLETION_FLUSH_MS = 50;
/** most jobs one fetch asks for: one statement per this many jobs under a burst */
const FETCH_MAX = 1000;
/** pg-boss 10's fetch condition on the due time; a lead fetch widens it */
const DUE_CONDITION = 'start_after < now()';

type Held = PgBoss.Job<any> & { startAfter?: Date };

class LeadUnavailable extends Error {}

export class FetchLoop {
  private readonly running = new Set<Promise<void>>();
  /** fetched (active in pg-boss), due, and waiting for a slot */
  private readonly buffer: Held[] = [];
  /** fetched ahead of time, in startAfter order, waiting for it */
  private held: Held[] = [];
  private heldTimer: NodeJS.Timeout | null = null;
  private readonly done: string[] = [];
  private readonly failed: Array<{ id: string; message: string }> = [];
  private flushing: Promise<void> = Promise.resolve();
  private stopping = false;
  private wake: (() => void) | null = null;
  /** the pause is waiting for room (a job's end wakes it), not for the queue to have due jobs again */
  private waitingForRoom = false;
  private loop: Promise<void> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private readonly leadMs: number;
  private readonly maxHeld: number;
  private leadUnavailable = false;

  constructor(
    private readonly boss: PgBoss,
    private readonly def: JobDefinition<any>,
    private readonly concurrency: number,
    private readonly logger: Logger,
  ) {
    this.leadMs = Math.max(0, def.leadMs ?? 0);
    this.maxHeld = Math.max(concurrency, def.maxHeld ?? concurrency);
  }

  start(): void {
    this.flushTimer = setInterval(() => this.flush(), COMPLETION_FLUSH_MS);
    this.flushTimer.unref();
    this.loop = this.run();
  }

  /**
   * Stops fetching, lets fetched due jobs finish (up to timeoutMs) and writes their completions. Jobs
   * held for a later due time are handed back to the queue (created again, same startAfter).
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    if (this.heldTimer) clearTimeout(this.heldTimer);
    const notDue = this.held.splice(0);
    if (notDue.length > 0) await this.handBack(notDue);
    const deadline = Date.now() + timeoutMs;
    while ((this.running.size > 0 || this.buffer.length > 0) && Date.now() < deadline) await this.pause(deadline - Date.now(), true);
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flush();
    await this.flushing;
  }

  private async run(): Promise<void> {
    const idleMs = (this.def.pollingIntervalSeconds ?? 1) * 1000;
    // fetch in batches of at least half the concurrency: a fetch costs about the same for one job or
    // many (pg-boss sorts every due job of the queue), and the buffer keeps slots busy meanwhile
    const minBatch = Math.max(1, Math.ceil(Math.min(this.concurrency, FETCH_MAX) / 2));
    while (!this.stopping) {
      const room = Math.min(FETCH_MAX, this.maxHeld - this.buffer.length - this.held.length);
      const idle = this.running.size === 0 && this.buffer.length === 0 && this.held.length === 0;
      if (room < minBatch && !idle) {
        await this.pause(idleMs, true);
        continue;
      }
      let jobs: Held[] = [];
      try {
        jobs = await this.fetch(Math.max(1, room));
      } catch (err) {
        if (this.stopping) break;
        this.logger.warn({ queue: this.def.name, err: (err as Error).message }, 'job fetch failed');
      }
      this.take(jobs);
      // the queue answered with less than asked (or failed): wait the polling interval before asking
      // again, whatever ends meanwhile: a job's end adds no due job, and asking again on each one cost
      // an empty fetch per completed job under a burst (about 150 for 10,000 publish jobs)
      if (jobs.length < room || jobs.length === 0) await this.pause(idleMs, false);
    }
  }

  private async fetch(batchSize: number): Promise<Held[]> {
    if (this.leadMs === 0 || this.leadUnavailable) return this.boss.fetch(this.def.name, { batchSize });
    const boss = this.boss;
    const leadMs = this.leadMs;
    let failure: unknown = null;
    // pg-boss's own fetch statement, with the due condition widened by the lead time
    const db = {
      async executeSql(text: string, values: unknown[]) {
        try {
          if (!text.includes(DUE_CONDITION)) throw new LeadUnavailable();
          const widened = text.replace(DUE_CONDITION, `start_after < now() + $${values.length + 1}::interval`);
          return await (boss.getDb() as { executeSql(t: string, v: unknown[]): Promise<unknown> }).executeSql(widened, [
            ...values,
            `${leadMs} milliseconds`,
          ]);
        } catch (err) {
          failure = err;
          throw err;
        }
      },
    };
    const jobs = (await this.boss.fetch(this.def.name, { batchSize, includeMetadata: true, db } as never)) as Held[];
    // pg-boss answers a failed fetch with no jobs; the failure is ours to report
    if (failure instanceof LeadUnavailable) {
      this.leadUnavailable = true;
      this.logger.warn({ queue: this.def.name }, 'pg-boss fetch statement changed: jobs are fetched when due, without lead');
    } else if (failure) throw failure;
    return jobs;
  }

  /** Fetched jobs: due ones to the buffer, the others held until their startAfter. */
  private take(jobs: Held[]): void {
    if (jobs.length === 0) return;
    const now = Date.now();
    let added = false;
    for (const job of jobs) {
      const at = job.startAfter ? new Date(job.startAfter).getTime() : 0;
      if (at > now) {
        this.held.push(job);
        added = true;
      } else this.buffer.push(job);
    }
    if (added) {
      this.held.sort((a, b) => new Date(a.startAfter!).getTime() - new Date(b.startAfter!).getTime());
      this.armHeld();
    }
    this.fill();
  }

  /** One timer for the earliest held job; on firing, every held job now due moves to the buffer. */
  private armHeld(): void {
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.heldTimer = null;
    const first = this.held[0];
    if (!first || this.stopping) return;
    const wait = Math.max(0, new Date(first.startAfter!).getTime() - Date.now());
    this.heldTimer = setTimeout(() => {
      this.heldTimer = null;
      const now = Date.now();
      let i = 0;
      while (i < this.held.length && new Date(this.held[i]!.startAfter!).getTime() <= now) i++;
      this.buffer.push(...this.held.splice(0, i));
      this.fill();
      this.armHeld();
    }, wait);
  }

  /** Held jobs back to created (their startAfter kept), so another worker or a restart runs them. */
  private async handBack(jobs: Held[]): Promise<void> {
    try {
      const db = this.boss.getDb() as { executeSql(t: string, v: unknown[]): Promise<unknown> };
      await db.executeSql(
        `update pgboss.job set state = 'created', started_on = null where name = $1 and id = any($2::uuid[]) and state = 'active'`,
        [this.def.name, jobs.map((j) => j.id)],
      );
    } catch (err) {
      // left active: they expire, and the owner's recovery takes over as after a crash
      this.logger.warn({ queue: this.def.name, err: (err as Error).message }, 'held jobs not handed back');
    }
  }

  /** Waits until stop is called, ms pass, or (forRoom) a job ends. */
  private async pause(ms: number, forRoom: boolean): Promise<void> {
    if (this.stopping && this.running.size === 0 && this.buffer.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    this.waitingForRoom = forRoom;
    await new Promise<void>((r) => {
      this.wake = r;
      timer = setTimeout(r, ms);
    });
    clearTimeout(timer);
    this.wake = null;
    this.waitingForRoom = false;
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
      if (this.waitingForRoom || this.stopping) this.wake?.();
    });
    this.running.add(p);
  }

  /**
   * pg-boss's completion statement (`id IN (SELECT UNNEST($2))`) leans on the queue partition's
   * statistics: after a burst fetched thousands of jobs into a partition last analyzed near empty, the
   * planner joins every active row against the id list, about 100 ms per completion of 64 jobs at
   * 10,000 active (measured; 1 ms once analyzed). `id = any($2)` is planned as a primary-key lookup
   * whatever the statistics say. Same effect as `boss.complete(name, ids)`: active -> completed.
   */
  private async complete(ids: string[]): Promise<void> {
    const db = this.boss.getDb() as { executeSql(t: string, v: unknown[]): Promise<unknown> };
    await db.executeSql(
      `update pgboss.job set completed_on = now(), state = 'completed', output = null
       where name = $1 and id = any($2::uuid[]) and state = 'active'`,
      [this.def.name, ids],
    );
  }

  private flush(): void {
    if (this.done.length === 0 && this.failed.length === 0) return;
    const ok = this.done.splice(0);
    const bad = this.failed.splice(0);
    const name = this.def.name;
    this.flushing = this.flushing.then(async () => {
      try {
        if (ok.length > 0) await this.complete(ok);
        for (const f of bad) await this.boss.fail(name, f.id, { message: f.message });
      } catch (err) {
        // a job left active is expired by pg-boss and, for publishing, swept by reconciliation
        this.logger.warn({ queue: name, err: (err as Error).message }, 'job completion failed');
      }
    });
  }
}
