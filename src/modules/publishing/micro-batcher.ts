/**
 * Collects calls and runs them as one: those made in the same event-loop turn and, while MAX_IN_FLIGHT
 * batches are running, every call that arrives until one of them ends, so batches grow with the
 * database's latency instead of one statement per call when outcomes trickle in one by one. Under a
 * burst PostgreSQL's per-statement cost (parse, plan, commit, a round trip), not the rows, is what
 * limits publishes per second; one statement for a batch keeps every row's conditions (id, version,
 * state) so racing writers behave as with one statement per input. A batch that fails (a deadlock
 * between two batches touching the same jobs) falls back to one call per input.
 */
const MAX_BATCH = 256;
/** batches of one kind in flight at once; calls arriving meanwhile wait and go together */
const MAX_IN_FLIGHT = 2;

/**
 * Write-behind: while `busy()` says more urgent work is waiting for the CPU (the publish engine's calls
 * waiting for a permit), calls are held instead of written, then written together, 256 a statement, when
 * `release()` is called (the urgent work has drained), after `maxHoldMs` from the first held call, or
 * once `maxHeld` calls are held. Once released, everything held is written before holding again.
 */
export interface HoldPolicy {
  busy: () => boolean;
  maxHoldMs: number;
  maxHeld: number;
}

/**
 * How a batcher waits for more calls: `hold` (write-behind, above); `lingerMs`, how long the first call of
 * a batch waits for others (default: to the end of the event-loop turn), for writes whose latency matters
 * less than their statement count.
 */
export interface BatchPolicy {
  hold?: HoldPolicy;
  lingerMs?: number;
}

export class MicroBatcher<I, O> {
  private pending: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;
  private inFlight = 0;
  private holdTimer: NodeJS.Timeout | null = null;
  /** released: write what is pending before holding again */
  private draining = false;

  private readonly hold?: HoldPolicy;
  private readonly lingerMs: number;

  constructor(
    private readonly many: (inputs: I[]) => Promise<O[]>,
    private readonly one: (input: I) => Promise<O>,
    policy: BatchPolicy = {},
  ) {
    this.hold = policy.hold;
    this.lingerMs = policy.lingerMs ?? 0;
  }

  /** Writes every held call now (no-op without held calls). */
  release(): void {
    if (this.pending.length === 0) return;
    this.draining = true;
    for (let i = 0; i < MAX_IN_FLIGHT; i++) this.flush();
  }

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (this.pending.length >= MAX_BATCH) this.flush();
      else this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      this.flush();
    };
    if (this.lingerMs > 0) setTimeout(run, this.lingerMs);
    else setImmediate(run);
  }

  private flush(): void {
    if (this.inFlight >= MAX_IN_FLIGHT) return;
    if (this.pending.length === 0) {
      this.draining = false;
      return;
    }
    if (this.hold && !this.draining && this.pending.length < this.hold.maxHeld && this.hold.busy()) {
      this.holdTimer ??= setTimeout(() => {
        this.holdTimer = null;
        this.release();
      }, this.hold.maxHoldMs);
      return;
    }
    if (this.holdTimer) {
      clearTimeout(this.holdTimer);
      this.holdTimer = null;
    }
    const batch = this.pending.splice(0, MAX_BATCH);
    this.inFlight++;
    const inputs = batch.map((b) => b.input);
    const run = batch.length === 1 ? this.one(inputs[0]!).then((o) => [o]) : this.many(inputs);
    run
      .then(
        (outs) => {
          for (const [i, b] of batch.entries()) b.resolve(outs[i]!);
        },
        () =>
          // one by one, so one input's failure stays its own
          Promise.all(batch.map((b) => this.one(b.input).then(b.resolve, b.reject))),
      )
      .finally(() => {
        this.inFlight--;
        if (this.pending.length > 0) this.schedule();
        else this.draining = false;
      });
  }
}
