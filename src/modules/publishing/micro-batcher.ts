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

export class MicroBatcher<I, O> {
  private pending: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly many: (inputs: I[]) => Promise<O[]>,
    private readonly one: (input: I) => Promise<O>,
  ) {}

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
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= MAX_IN_FLIGHT) return;
    const batch = this.pending.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
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
      });
  }
}
