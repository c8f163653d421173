/**
 * Authentication, origin check and rate limiting of the public API, in the specification's order:
 * public API enabled (403) -> effective origin allowed (421) -> bearer present (401 required) ->
 * credential valid and not negatively cached (401 forbidden) -> scope (401 forbidden) -> rate limit (429).
 * Routes declare their requirement with `config: { auth: { scope } }`; routes without it are public.
 * Routes the dashboard also calls use `config: publicOrDashboard(scope, policy)` (http/dashboard-auth.ts).
 * The same step runs the other installed schemes (http/auth-scheme.ts) for routes that name one in
 * `config.authBy`: one authentication step for every route of the service. Each route gets its check as an
 * onRequest hook of its own when it is added (so install this before any route): a route without a
 * requirement runs none, and no request reads its route's options to find out.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { type Clock, epochMs } from '../platform/clock.js';
import type { ConsumeResult } from '../platform/counters/counter-store.js';
import type { Counters } from '../platform/counters/index.js';
import { selectStore } from '../platform/counters/store-selection.js';
import { AppError } from '../platform/errors.js';
import type { AuthScheme } from './auth-scheme.js';
import { checkHook, prependOnRequest } from './callback-hooks.js';
import { takesDashboardPath } from './dashboard-auth.js';
import { hasScope, type Principal, type ScopeRequirement } from './principal.js';

/** What the public API's checks read: the settings, the shared counters (rate limits) and the clock. */
interface PublicAuthDeps {
  config: Config;
  counters: Counters;
  clock: Clock;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: { scope: ScopeRequirement };
  }
  interface FastifyInstance {
    /**
     * The public API's checks (gate, origin, bearer, scope, rate limit) for routes that decide at run
     * time whether a credential is needed (signed media URLs); sets request.principal.
     */
    authorizePublic(request: FastifyRequest, reply: FastifyReply, scope: ScopeRequirement): Promise<Principal>;
    /** Drops this process's cache of accepted credentials (after a revocation). */
    forgetPublicCredentials(): void;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

function effectiveOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`.toLowerCase();
}

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * The counter key of a principal's window, built once per window and kept: a string built on every request is
 * flattened and hashed again by the counter store's lookup, a kept one carries its hash.
 */
const windowKeys = new Map<Principal['kind'], Map<string, { windowStart: number; key: string }>>();
/** past this many principals of a kind the cache starts over (it only saves building strings) */
const WINDOW_KEYS_MAX = 10_000;

function windowKey(principal: Principal, windowStart: number): string {
  let ofKind = windowKeys.get(principal.kind);
  if (!ofKind) {
    ofKind = new Map();
    windowKeys.set(principal.kind, ofKind);
  }
  const kept = ofKind.get(principal.subjectId);
  if (kept?.windowStart === windowStart) return kept.key;
  if (ofKind.size >= WINDOW_KEYS_MAX) ofKind.clear();
  const key = `rl:public:${principal.kind}:${principal.subjectId}:${windowStart}`;
  ofKind.set(principal.subjectId, { windowStart, key });
  return key;
}

/**
 * Fixed-window rate limit per principal. Headers (on every authenticated answer):
 * RateLimit-Limit / X-RateLimit-Limit: requests per window; RateLimit-Remaining / X-RateLimit-Remaining;
 * RateLimit-Reset: seconds until the window resets (delta, as in the IETF RateLimit fields draft);
 * X-RateLimit-Reset: the reset time as Unix epoch seconds; Retry-After (429 only): seconds to wait.
 */
function applyRateLimit(deps: PublicAuthDeps, principal: Principal, reply: FastifyReply): Promise<void> | undefined {
  const env = deps.config.env;
  if (env.SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED) return undefined;
  const store = selectStore(env.SERVICE_PUBLIC_API_RATE_LIMIT_STORE, deps.counters);
  const limit = env.SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS;
  const windowMs = env.SERVICE_PUBLIC_API_RATE_LIMIT_WINDOW_SECONDS * 1000;
  const now = epochMs(deps.clock);
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const key = windowKey(principal, windowStart);
  // the in-process store answers at once: no promise on the path of every authenticated request
  if (store.consumeNow) {
    answerRateLimit(reply, env, now, windowStart + windowMs, store.consumeNow(key, 1, limit, windowMs + 1000));
    return undefined;
  }
  return store.consume(key, 1, limit, windowMs + 1000).then((result) => answerRateLimit(reply, env, now, windowStart + windowMs, result));
}

/** The rate-limit headers of a counted request; throws the 429 when it is over the limit. */
function answerRateLimit(reply: FastifyReply, env: Config['env'], now: number, resetAt: number, result: ConsumeResult): void {
  const limit = env.SERVICE_PUBLIC_API_RATE_LIMIT_REQUESTS;
  const resetSeconds = String(Math.max(1, Math.ceil((resetAt - now) / 1000)));
  const remaining = String(Math.max(0, limit - result.count));
  const headers: Record<string, string> = {
    'ratelimit-limit': String(limit),
    'ratelimit-remaining': remaining,
    'ratelimit-reset': resetSeconds,
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
  };
  reply.headers(headers);
  if (!result.allowed) {
    throw new AppError('public_api_rate_limited', {
      message: `Rate limit of ${limit} requests per ${env.SERVICE_PUBLIC_API_RATE_LIMIT_WINDOW_SECONDS} s exceeded; retry in ${resetSeconds} s.`,
      headers: { ...headers, 'retry-after': resetSeconds },
    });
  }
}

/** What the identity area provides: the credential check behind the bearer (API keys, OAuth tokens). */
export interface PublicAuthenticator {
  /**
   * the principal of a presented credential, at once when nothing outside the process is needed (a credential
   * accepted a moment ago), a promise otherwise; throws or rejects with AppError when it is not valid
   */
  authenticate(token: string): Principal | Promise<Principal>;
  /** drops cached accepted credentials (after a revocation) */
  forget(): void;
}

export function installPublicAuth(
  app: FastifyInstance,
  deps: PublicAuthDeps,
  authenticator: PublicAuthenticator,
  otherSchemes: readonly AuthScheme[] = [],
): void {
  const schemes = new Map(otherSchemes.map((s) => [s.name, s]));
  /** scope, then rate limit: the principal, at once unless the rate limit's store is behind a network */
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    scope: ScopeRequirement,
  ): Principal | Promise<Principal> => {
    if (!hasScope(principal, scope)) {
      throw new AppError('public_api_token_forbidden', { message: `The credential lacks the scope ${scope} this route needs.` });
    }
    request.principal = principal;
    const limited = applyRateLimit(deps, principal, reply);
    return limited ? limited.then(() => principal) : principal;
  };
  /**
   * The checks in the specification's order. Synchronous when they can be (a credential accepted a moment ago,
   * counters in this process): most requests then pay for no promise and no microtask turn.
   */
  const authorize = (request: FastifyRequest, reply: FastifyReply, scope: ScopeRequirement): Principal | Promise<Principal> => {
    if (!deps.config.gateOpen('SERVICE_PUBLIC_API_ENABLED')) throw new AppError('public_api_disabled');
    const allowed = deps.config.publicApiOrigins;
    if (allowed && !allowed.includes(effectiveOrigin(request))) {
      throw new AppError('request_origin_not_allowed', { message: `This API is not served at ${effectiveOrigin(request)}.` });
    }
    const token = bearer(request);
    if (!token) throw new AppError('public_api_token_required', { message: 'Send the API key as Authorization: Bearer <key>.' });
    const principal = authenticator.authenticate(token);
    if (principal instanceof Promise) return principal.then((p) => admit(request, reply, p, scope));
    return admit(request, reply, principal, scope);
  };
  app.decorateRequest('principal', null);
  app.decorate('authorizePublic', async (request: FastifyRequest, reply: FastifyReply, scope: ScopeRequirement) =>
    authorize(request, reply, scope),
  );
  app.decorate('forgetPublicCredentials', () => authenticator.forget());
  // Each route's check is decided when the route is added: routes without one run no hook for it
  app.addHook('onRoute', (route) => {
    const by = route.config?.authBy;
    const scheme = by && schemes.get(by.scheme);
    if (by && !scheme) throw new Error(`${route.method} ${route.url}: no authentication scheme "${by.scheme}" is installed`);
    if (by && scheme && !scheme.requirements.includes(by.requirement))
      throw new Error(`${route.method} ${route.url}: the scheme "${by.scheme}" knows no requirement "${by.requirement}"`);
    if (by && route.config?.auth) throw new Error(`${route.method} ${route.url}: a route takes one of auth and authBy`);
    if (by && scheme) {
      const requirement = by.requirement;
      prependOnRequest(
        route,
        checkHook((request, reply) => scheme.authorize(request, reply, requirement)),
      );
      return;
    }
    const scope = route.config?.auth?.scope;
    if (scope === undefined) return;
    prependOnRequest(
      route,
      route.config?.sessionAlternative
        ? // publicOrDashboard routes: a request with the session cookie and no bearer is the dashboard's to check
          checkHook((request, reply) => (takesDashboardPath(request) ? undefined : authorize(request, reply, scope)))
        : checkHook((request, reply) => authorize(request, reply, scope)),
    );
  });
}

/** The authenticated principal of a route that declared `auth` (never null there). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('public_api_token_required');
  return request.principal;
}
