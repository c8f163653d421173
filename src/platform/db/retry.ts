/**
 * Retrying a transaction PostgreSQL aborted for a conflict with another one: deadlock_detected (40P01)
 * or serialization_failure (40001). PostgreSQL's answer to both is "retry the transaction"
 * (https://www.postgresql.org/docs/current/mvcc-serialization-failure-handling.html). A client's state
 * change racing the publish worker (a cancel taking the job row, then its targets, while the worker's
 * outcome holds a target and waits for the job) is the case that answered 500 before.
 *
 * Only the whole transaction may be retried, never one statement of it: `run` must open its own.
 */

/** SQLSTATEs after which the same transaction may simply run again. */
const CONFLICT_STATES = new Set(['40P01', '40001']);

export function isTransactionConflict(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && CONFLICT_STATES.has(e.code)) return true;
  }
  return false;
}

/** Runs `run` (which opens and commits its own transaction) again after a conflict, up to `attempts` times. */
export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= attempts || !isTransactionConflict(err)) throw err;
      // a short, growing, jittered pause so the two transactions do not meet again in step
      await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    }
  }
}
