/**
 * The glue of hooks that take Fastify's `done` callback instead of being async (every request runs them, and
 * an async hook costs a promise and a microtask turn even where it has nothing to do). Each form ends the
 * hook exactly once, and a rejection or a throw that is not an Error is wrapped, so it can never pass as
 * success (`done(undefined)`).
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler, RouteOptions } from 'fastify';

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

/**
 * Puts `hook` first among a route's own onRequest hooks (from an `onRoute` hook): a check decided per route when
 * the route is added, instead of a hook every request of every route runs to read the route's options (Fastify
 * builds `request.routeOptions` anew on each read). The route's own hooks (a body size check) run after it, as
 * they would after an application-wide hook. A new array: the HEAD route Fastify adds for a GET route starts
 * from a copy of the GET route's options made before the onRoute hooks run.
 */
export function prependOnRequest(route: RouteOptions, hook: onRequestHookHandler): void {
  const own = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
  route.onRequest = [hook, ...own];
}

/** The onRequest hook of a check answering nothing (pass), a promise (pass when it resolves), or throwing (refuse). */
export function checkHook(check: (request: FastifyRequest, reply: FastifyReply) => unknown): onRequestHookHandler {
  return (request, reply, done) => {
    let checked: unknown;
    try {
      checked = check(request, reply);
    } catch (err) {
      return done(asError(err));
    }
    // decided at once; a promise otherwise
    if (!(checked instanceof Promise)) return done();
    endHookWhenSettled(checked, done);
  };
}
