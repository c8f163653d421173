/**
 * A small pool of worker threads that encode QR codes so large PNGs never block the event loop.
 * Workers start from a plain .mjs bootstrap that registers the tsx loader when the worker module is
 * TypeScript (Node 20 does not pass `--import tsx` on to workers), so it works from tests, the CLI and a
 * compiled build alike.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { QrEncodeResult } from './qr-encoder.js';
import type { QrRequest } from './qr-options.js';

interface Pending {
  id: number;
  request: QrRequest;
  resolve: (result: QrEncodeResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Pending | null;
}

/** One core stays with the event loop; at most four workers since each job is only milliseconds long. */
export function defaultQrPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

const bootstrapUrl = new URL('./qr-worker-bootstrap.mjs', import.meta.url);
const workerEntry = new URL(import.meta.url.endsWith('.ts') ? './qr-encoder.worker.ts' : './qr-encoder.worker.js', import.meta.url).href;

export class QrWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;

  // Workers start on first use: an API process that never renders a QR code does not pay for their
  // isolates (about 15 MB of resident memory each).
  constructor(readonly size: number = defaultQrPoolSize()) {}

  private spawn(): Slot {
    const worker = new Worker(bootstrapUrl, {
      workerData: { entry: workerEntry },
    });
    const slot: Slot = { worker, job: null };
    worker.on('message', (message: { id: number; result?: QrEncodeResult; error?: string }) => {
      const job = slot.job;
      slot.job = null;
      if (job && job.id === message.id) {
        if (message.result) job.resolve(message.result);
        else job.reject(new Error(message.error ?? 'QR worker failed'));
      }
      this.dispatch();
    });
    worker.on('error', (error) => this.replace(slot, error));
    worker.on('exit', (code) => {
      if (!this.closed) this.replace(slot, new Error(`QR worker exited with code ${code}`));
    });
    // Idle workers must not keep the process alive.
    worker.unref();
    return slot;
  }

  private replace(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1 || this.closed) return;
    slot.job?.reject(error);
    slot.job = null;
    void slot.worker.terminate();
    this.slots[index] = this.spawn();
    this.dispatch();
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.slots.length < this.size && this.slots.every((s) => s.job)) this.slots.push(this.spawn());
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      const job = this.queue.shift() as Pending;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, request: job.request });
    }
    for (const slot of this.slots) if (!slot.job) slot.worker.unref();
  }

  /** Number of jobs waiting for a free worker. */
  get queued(): number {
    return this.queue.length;
  }

  encode(request: QrRequest): Promise<QrEncodeResult> {
    if (this.closed) return Promise.reject(new Error('QR worker pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, request, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('QR worker pool is closed'));
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }
}
