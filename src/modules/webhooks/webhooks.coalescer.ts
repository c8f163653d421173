/**
 * Coalesces calls made at about the same time into one batched call: the worker runs dozens of
 * deliveries at once, and one statement for all of them costs about what one costs for each (on
 * PostgreSQL each write is its own commit and WAL flush). A call waits at most for the batch in flight.
 * (The same pattern as publishing's micro-batcher, kept here because areas do not share internals.)
 */
export class Coalescer<I, O> {
  private readonly queue: { input: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  /** run answers one output per input, in order */
  constructor(
    private readonly run: (inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 100,
    private readonly maxInFlight = 2,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // the calls of this turn of the event loop join the batch
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush() {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      this.run(batch.map((b) => b.input))
        .then(
          (outputs) => {
            for (const [i, b] of batch.entries()) b.resolve(outputs[i] as O);
          },
          (err) => {
            if (batch.length === 1) {
              batch[0]!.reject(err);
              return;
            }
            // one by one, so one input's failure (a deadlock between two batches) stays its own
            return Promise.all(batch.map((b) => this.run([b.input]).then(([o]) => b.resolve(o as O), b.reject)));
          },
        )
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
