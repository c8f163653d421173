import type { AppDeps, StorageHealth } from '../app-deps.js';
import { healthRepository } from './health.repository.js';

export const SERVICE_NAME = 'service-api' as const;

async function timed<T>(fn: () => Promise<T>, timeoutMs = 2000): Promise<{ value?: T; error?: string; latencyMs: number }> {
  const t0 = performance.now();
  try {
    const value = await Promise.race([
      fn(),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timed out')), timeoutMs).unref()),
    ]);
    return { value, latencyMs: Math.round(performance.now() - t0) };
  } catch (err) {
    return { error: (err as Error).message, latencyMs: Math.round(performance.now() - t0) };
  }
}

/** what the readiness check reads: the database, Redis (when configured), the worker heartbeat and the version */
export type ReadinessPorts = Pick<AppDeps, 'config' | 'database' | 'counters' | 'clock' | 'version'>;

export async function checkReadiness(deps: ReadinessPorts) {
  const { db } = deps.database;
  const staleMs = deps.config.env.SERVICE_WORKER_STALE_SECONDS * 1000;
  const [database, redis, worker] = await Promise.all([
    timed(() => healthRepository.ping(db)),
    deps.counters.redis
      ? timed(async () => {
          if (!(await deps.counters.redis!.ping())) throw new Error('no answer');
        })
      : Promise.resolve(null),
    timed(() => healthRepository.lastHeartbeat(db)),
  ]);
  const now = deps.clock.now().getTime();
  const beat = worker.value?.beat_at ? new Date(worker.value.beat_at) : null;
  const workerOk = !worker.error && beat !== null && now - beat.getTime() <= staleMs;
  const components = {
    database: {
      ok: !database.error,
      kind: deps.database.kind,
      latencyMs: database.latencyMs,
      ...(database.error ? { error: 'database did not answer' } : {}),
    },
    redis:
      redis === null
        ? { ok: true, configured: false }
        : { ok: !redis.error, configured: true, latencyMs: redis.latencyMs, ...(redis.error ? { error: 'redis did not answer' } : {}) },
    worker: {
      ok: workerOk,
      lastHeartbeatAt: beat ? beat.toISOString() : null,
      ageSeconds: beat ? Math.round((now - beat.getTime()) / 1000) : null,
      staleAfterSeconds: deps.config.env.SERVICE_WORKER_STALE_SECONDS,
    },
  };
  return {
    ok: components.database.ok && components.redis.ok && components.worker.ok,
    service: SERVICE_NAME,
    version: deps.version,
    components,
  };
}

export async function checkStorage(storageHealth: () => Promise<StorageHealth>) {
  const h = await storageHealth();
  return { ok: h.ok, service: SERVICE_NAME, mediaStorage: h.mediaStorage };
}
