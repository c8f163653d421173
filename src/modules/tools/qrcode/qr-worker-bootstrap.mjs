// Worker entry shared by source and compiled runs: a TypeScript worker module needs the tsx loader,
// which Node 20 does not pass on to worker threads through execArgv.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
