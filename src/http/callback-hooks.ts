/**
 * The glue of hooks that take Fastify's `done` callback instead of being async (every request runs them, and
 * an async hook costs a promise and a microtask turn even where it has nothing to do). Each form ends the
 * hook exactly once, and a rejection or a throw that is not an Error is wrapped, so it can never pass as
 * success (`done(undefined)`).
 */
import type { HookHandlerDoneFunction } from 'fastify';

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * Ends the hook when an asynchronous check settles: `then` (if given) takes its value first; a rejection, or
 * a throw of `then`, ends it with the error.
 */
export function endHookWhenSettled<T>(checked: Promise<T>, done: HookHandlerDoneFunction, then?: (value: T) => void): void {
  checked.then(
    (value) => {
      try {
        then?.(value);
      } catch (err) {
        return done(asError(err));
      }
      done();
    },
    (err: unknown) => done(asError(err)),
  );
}

/** Ends the hook with what a synchronous check answers or throws (an error to refuse the request, or nothing). */
export function endHookWith(done: HookHandlerDoneFunction, check: () => unknown): void {
  let issue: unknown;
  try {
    issue = check();
  } catch (err) {
    issue = asError(err);
  }
  done(issue ? asError(issue) : undefined);
}
