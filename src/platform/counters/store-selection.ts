import { AppError } from '../errors.js';
import type { CounterStore, Counters } from './index.js';

/**
 * Resolves a `*_STORE` setting (memory | redis, default: redis when REDIS_URL is set) to a store.
 * Misconfiguration is answered per request with the specification's 400 configuration codes, so a
 * mistyped setting is visible to the caller instead of silently falling back to per-process counters.
 */
export function selectStore(setting: string | undefined, counters: Counters): CounterStore {
  const value = (setting ?? (counters.redis ? 'redis' : 'memory')).trim().toLowerCase();
  if (value === 'memory') return counters.memory;
  if (value === 'redis') {
    if (!counters.redis) throw new AppError('redis_url_required', { message: 'The counter store is redis but REDIS_URL is not set.' });
    return counters.redis;
  }
  throw new AppError('invalid_public_api_rate_limit_store', { message: `Unsupported counter store "${value}"; use memory or redis.` });
}
