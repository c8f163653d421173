/**
 * Everything buildApp and the areas need, created by src/main/runtime.ts (or by the test harness). It lives
 * beside database.ts because it names the merged schema; the root and every area import it from here.
 */
import type { Config } from '../config.js';
import type { Clock } from '../platform/clock.js';
import type { Counters } from '../platform/counters/index.js';
import type { DatabaseHandle } from '../platform/db/database.js';
import type { EventOutbox } from '../platform/events/outbox.js';
import type { Metrics } from '../platform/metrics/index.js';
import type { JobQueue } from '../platform/queue/job-queue.js';
import type { Encryptor } from '../platform/secrets/encryption.js';
import type { Database } from './database.js';

export interface StorageHealth {
  ok: boolean;
  mediaStorage: { configured: boolean } & Record<string, unknown>;
}

export interface AppDeps {
  config: Config;
  database: DatabaseHandle<Database>;
  counters: Counters;
  jobs: JobQueue;
  encryptor: Encryptor;
  /** the event outbox: areas record events in the transaction of their change */
  events: EventOutbox;
  clock: Clock;
  /** the process's metrics (one instance: the API and the worker of a process share it) */
  metrics: Metrics;
  version: string;
}
