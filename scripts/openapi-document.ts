/**
 * The OpenAPI document exactly as the service serves it at /v1/openapi.json, built in-process on an
 * in-memory database (no server, no files). Used by the SDK generator and its staleness test.
 * `node --import tsx scripts/openapi-document.ts [out.json]` writes it (stdout without an argument).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { composeRoot } from '../src/main/composition.js';
import { VERSION } from '../src/main/runtime.js';
import type { AppDeps } from '../src/modules/app-deps.js';
import { systemClock } from '../src/platform/clock.js';
import { closeCounters, createCounters } from '../src/platform/counters/index.js';
import { openPglite } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { EventOutbox } from '../src/platform/events/outbox.js';
import { createMetrics } from '../src/platform/metrics/index.js';
import { createJobQueue } from '../src/platform/queue/job-queue.js';
import { Encryptor } from '../src/platform/secrets/encryption.js';

/** The public base URL written into `servers` does not depend on the machine that generates it. */
export const DOCUMENT_BASE_URL = 'http://localhost:3000';

export async function loadOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_PUBLIC_BASE_URL: DOCUMENT_BASE_URL,
    SERVICE_DATA_DIR: '/tmp/service-api-openapi',
  });
  const database = await openPglite('memory://');
  await migrateToLatest(database.db);
  const counters = createCounters(undefined);
  // some areas declare their pg-boss queues while routes are registered
  const jobs = createJobQueue(database, { supervise: false, schedule: false });
  await jobs.start();
  const deps: AppDeps = {
    config,
    database,
    counters,
    jobs,
    encryptor: new Encryptor(randomBytes(32)),
    events: new EventOutbox(() => systemClock.now()),
    clock: systemClock,
    metrics: createMetrics({ defaultMetrics: false }),
    version: VERSION,
  };
  const app = await buildApp(composeRoot(deps), { logger: false });
  try {
    await app.ready();
    const res = await app.inject({ url: '/v1/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
    return res.json() as Record<string, unknown>;
  } finally {
    await app.close();
    await jobs.stop({ graceful: false, timeoutMs: 1000 }).catch(() => undefined);
    await closeCounters(counters);
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const doc = JSON.stringify(await loadOpenApiDocument(), null, 2);
  if (process.argv[2]) fs.writeFileSync(process.argv[2], `${doc}\n`);
  else process.stdout.write(`${doc}\n`);
}
