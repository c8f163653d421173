/**
 * metricsWithCounterStores(counters): a Metrics instance that also counts the counter stores' failures.
 * A process builds one with its dependencies (src/main/runtime.ts) and hands it to every area as the
 * `metrics` port; the API and the worker of the process share it.
 */

import type { CounterStore } from '../counters/counter-store.js';
import type { Counters } from '../counters/index.js';
import { type CounterStoreObserver, createMetrics, type Metrics } from './metrics.js';

export type { Metrics } from './metrics.js';
export { createMetrics } from './metrics.js';

export function metricsWithCounterStores(counters: Counters): Metrics {
  const metrics = createMetrics();
  observeCounterStore(counters.memory, metrics);
  if (counters.redis) observeCounterStore(counters.redis, metrics);
  return metrics;
}

const OBSERVED = Symbol('observedCounterStore');
/** every operation of a store but its health probe, its close and the in-process store's synchronous answers */
type Operation = Exclude<keyof CounterStore, 'kind' | 'ping' | 'close' | 'consumeNow' | 'getNow' | 'admitNow' | 'settleNow'>;
const OPERATIONS = [
  'consume',
  'increment',
  'get',
  'setFlag',
  'hasFlag',
  'deleteKey',
  'acquireSlot',
  'releaseSlot',
  'slotCount',
  'admit',
  'settle',
] as const satisfies readonly Operation[];
// an operation added to CounterStore and not to the list fails to compile here (admit and settle, the tool
// API's two calls a request, were once left out, so a failing Redis did not show on the tool API's path)
const everyOperationObserved: [Exclude<Operation, (typeof OPERATIONS)[number]>] extends [never] ? true : never = true;
void everyOperationObserved;

/**
 * Counts failed operations of a counter store. The store object is wrapped in place (its methods are
 * shadowed on the instance), because services captured it before metrics existed.
 */
function observeCounterStore(store: CounterStore, observer: CounterStoreObserver): void {
  const target = store as CounterStore & { [OBSERVED]?: true };
  if (target[OBSERVED]) return;
  target[OBSERVED] = true;
  for (const op of OPERATIONS) {
    const original = (store[op] as (...args: unknown[]) => Promise<unknown>).bind(store);
    const failed = (err: unknown): never => {
      observer.counterStoreError(store.kind, op);
      throw err;
    };
    // the store's own promise with a rejection handler: no async frame and await per call (the hot paths
    // of limits and quotas make several calls per request)
    (target as unknown as Record<string, unknown>)[op] = (...args: unknown[]) => {
      try {
        return original(...args).then(undefined, failed);
      } catch (err) {
        observer.counterStoreError(store.kind, op);
        return Promise.reject(err);
      }
    };
  }
}
