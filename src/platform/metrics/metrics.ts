/**
 * Prometheus metrics behind a small port. Layers that must stay free of domain imports (platform/,
 * providers/) record through the narrow interfaces below; the prom-client Registry is private to one
 * Metrics instance, so every app (tests build many) exposes only its own series.
 */
import client from 'prom-client';
import { RequestDurationHistogram } from './request-histogram.js';

/** Outbound provider calls: what providers/ may call. */
export interface ProviderCallObserver {
  providerCall(platform: string, operation: string, errorClass: string, seconds: number): void;
}

/** Job runs: what the queue worker calls. */
export interface JobObserver {
  job(queue: string, outcome: 'completed' | 'failed', seconds: number): void;
}

/** Counter-store failures (Redis unreachable, script errors). */
export interface CounterStoreObserver {
  counterStoreError(store: string, operation: string): void;
}

interface MetricsPort extends ProviderCallObserver, JobObserver, CounterStoreObserver {
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  publishLateness(platform: string, seconds: number): void;
  webhookDelivery(outcome: string, errorClass: string | null): void;
}

export interface Metrics extends MetricsPort {
  readonly contentType: string;
  /** the text exposition format of every series of this instance */
  scrape(): Promise<string>;
}

const PREFIX = 'service_api_';
/** Request and job durations: 5 ms .. 60 s. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Publish lateness: due time to recorded publication, 100 ms .. 1 h. */
const LATENESS_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 300, 900, 3600];

/**
 * Process metrics (CPU, memory, event-loop lag, GC) describe the process, not an app, and collecting
 * them starts timers and observers: one registry per process, merged into every app's scrape.
 */
let processRegistry: client.Registry | null = null;
function processMetrics(): client.Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const register = new client.Registry();
  const registers = opts.defaultMetrics === false ? [register] : [processMetrics(), register];

  // every series of this instance carries the prefix and lives in its own registry
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new client.Counter<L>({ name: `${PREFIX}${name}`, help, labelNames, registers: [register] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new client.Histogram<L>({ name: `${PREFIX}${name}`, help, labelNames, buckets, registers: [register] });

  // labels method, route and status_code (request-histogram.ts: every request writes it)
  const http = new RequestDurationHistogram(
    `${PREFIX}http_request_duration_seconds`,
    'HTTP request duration by method, route pattern and status code.',
    DURATION_BUCKETS,
  );
  // the registry reads any metric that answers get() in its format; its types list only its own classes
  register.registerMetric(http as unknown as client.Metric);
  const jobs = counter('jobs_total', 'Jobs run by the worker, by queue and outcome.', ['queue', 'outcome']);
  const jobDuration = histogram(
    'job_duration_seconds',
    'Job handler duration by queue and outcome.',
    ['queue', 'outcome'],
    DURATION_BUCKETS,
  );
  const lateness = histogram(
    'publish_lateness_seconds',
    "Time from a target's scheduledAt to its recorded publication, by platform.",
    ['platform'],
    LATENESS_BUCKETS,
  );
  const providerCalls = counter(
    'provider_calls_total',
    'Calls to a platform API by platform, operation and error class (none when it succeeded).',
    ['platform', 'operation', 'error_class'],
  );
  const providerDuration = histogram(
    'provider_call_duration_seconds',
    'Duration of calls to a platform API by platform and operation.',
    ['platform', 'operation'],
    DURATION_BUCKETS,
  );
  const webhooks = counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts by outcome (delivered, retry, failed) and error class (none when delivered).',
    ['outcome', 'error_class'],
  );
  const counterErrors = counter(
    'counter_store_errors_total',
    'Failed operations on the shared counter store (rate limits, quotas, locks), by store and operation.',
    ['store', 'operation'],
  );

  return {
    contentType: register.contentType,
    scrape: () => client.Registry.merge(registers).metrics(),
    httpRequest(method, route, status, seconds) {
      http.observe(method, route, status, seconds);
    },
    job(queue, outcome, seconds) {
      jobs.inc({ queue, outcome });
      jobDuration.observe({ queue, outcome }, seconds);
    },
    publishLateness(platform, seconds) {
      lateness.observe({ platform }, Math.max(0, seconds));
    },
    providerCall(platform, operation, errorClass, seconds) {
      providerCalls.inc({ platform, operation, error_class: errorClass });
      providerDuration.observe({ platform, operation }, seconds);
    },
    webhookDelivery(outcome, errorClass) {
      webhooks.inc({ outcome, error_class: errorClass ?? 'none' });
    },
    counterStoreError(store, operation) {
      counterErrors.inc({ store, operation });
    },
  };
}

/** Seconds elapsed since a process.hrtime.bigint() reading. */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
