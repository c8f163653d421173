/**
 * Collects calls made in the same event-loop turn and runs them as one. Under a burst PostgreSQL's
 * per-statement cost (parse, plan, commit), not the rows, is what limits publishes per second; one
 * statement for a batch keeps every row's conditions (id, version, state) so racing writers behave as
 * with one statement per input. A batch that fails (a deadlock between two batches touching the same
 * jobs) falls back to one call per input.
 */
const MAX_BATCH = 64;

export class MicroBatcher<I, O> {
  private pending: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  constructor(
    private readonly many: (inputs: I[]) => Promise<O[]>,
    private readonly one: (input: I) => Promise<O>,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (this.pending.length >= MAX_BATCH) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.pending.splice(0);
    if (batch.length === 0) return;
    const inputs = batch.map((b) => b.input);
    const run = batch.length === 1 ? this.one(inputs[0]!).then((o) => [o]) : this.many(inputs);
    run.then(
      (outs) => {
        for (const [i, b] of batch.entries()) b.resolve(outs[i]!);
      },
      () => {
        // one by one, so one input's failure stays its own
        for (const b of batch) this.one(b.input).then(b.resolve, b.reject);
      },
    );
  }
}
