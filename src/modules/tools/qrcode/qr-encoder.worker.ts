/** Worker thread body: encodes QR requests posted by QrWorkerPool, one at a time. */
import { parentPort } from 'node:worker_threads';
import { encodeQr } from './qr-encoder.js';
import type { QrRequest } from './qr-options.js';

interface Job {
  id: number;
  request: QrRequest;
}

parentPort?.on('message', (job: Job) => {
  try {
    parentPort?.postMessage({ id: job.id, result: encodeQr(job.request) });
  } catch (error) {
    parentPort?.postMessage({
      id: job.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
