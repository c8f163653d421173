/**
 * Dashboard and internal route authorization: the one place that enforces the specification's
 * permission policy table.
 *
 * Usage (any area):
 *   app.post('/v1/...', { config: requirePolicy('automations.scheduler.enqueue'), schema }, async (request) => {
 *     const actor = actorOf(request); // { kind: 'user', organizationId, userId, role, sessionId } | { kind: 'service', via }
 *   });
 *
 * Accepted credentials, per policy row:
 * - a dashboard session: cookie `service_dashboard_session` (then an Origin header, when sent, must be an
 *   approved dashboard origin, and it is required on every method other than GET/HEAD), or the legacy
 *   `Authorization: Bearer <session token>`; the member's role must reach the row's minimum role;
 *   refused on "internal only" rows;
 * - `x-service-internal-token` (SERVICE_INTERNAL_TOKEN) or `x-service-principal-token`
 *   (SERVICE_PRINCIPAL_TOKEN), only on rows that allow service principals, compared in constant time and
 *   refused whenever an Origin header is present (browsers send one; operational callers do not).
 * No credential: 401 dashboard_session_required (internal_token_required on internal-only rows). Any other
 * refusal: 403 permission_denied.
 * A service actor has no organization: routes that need one must take it from their input.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../platform/errors.js';
import { checkHook, prependOnRequest } from './callback-hooks.js';
import type { ScopeRequirement } from './principal.js';

/**
 * The policy ids and roles of the identity area's policy table. This file stays generic: identity
 * (modules/identity/policies.ts) fills the registry by declaration merging, so route options are
 * checked against its table without http importing it.
 */
/** @public filled by declaration merging, which the unused-export check does not see */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging
export interface DashboardPolicyRegistry {}
export type PolicyId = DashboardPolicyRegistry extends { policy: infer P extends string } ? P : string;
type Role = DashboardPolicyRegistry extends { role: infer R extends string } ? R : string;

/** What the identity area provides to authorize a dashboard request. */
export interface DashboardAuthPort {
  rule(policy: PolicyId): { minimumRole: Role; servicePrincipal: boolean; internalOnly: boolean };
  /** whether a member's role reaches a policy's minimum role */
  roleReaches(role: string, minimum: Role): role is Role;
  /** the live session a presented token names, or null */
  resolveSession(token: string): Promise<{ organizationId: string; userId: string; email: string; role: string; sessionId: string } | null>;
}

export type Actor =
  | { kind: 'user'; organizationId: string; userId: string; email: string; role: Role; sessionId: string }
  | { kind: 'service'; via: 'internal_token' | 'principal_token' };

declare module 'fastify' {
  interface FastifyContextConfig {
    policy?: PolicyId;
    /** set by publicOrDashboard: the public credential or a dashboard session cookie */
    sessionAlternative?: boolean;
  }
  interface FastifyRequest {
    actor: Actor | null;
    /** set with a user actor: whether the user's role also reaches another policy (see userReaches) */
    actorPolicyCheck: ((policy: PolicyId) => boolean) | null;
  }
}

export const DASHBOARD_SESSION_COOKIE = 'service_dashboard_session';

/** Route option: `config: requirePolicy('webhooks.endpoints.manage')`. */
export function requirePolicy(policy: PolicyId): { policy: PolicyId } {
  return { policy };
}

/**
 * Route option of a public API route the dashboard also uses: an API key or OAuth access token with
 * `scope` (the public API's checks), or the dashboard session cookie under `policy` (role, approved
 * Origin). A request takes the dashboard way when it carries the cookie and no Authorization header.
 */
export function publicOrDashboard(
  scope: ScopeRequirement,
  policy: PolicyId,
): { auth: { scope: ScopeRequirement }; policy: PolicyId; sessionAlternative: true } {
  return { auth: { scope }, policy, sessionAlternative: true };
}

/** On a publicOrDashboard route: true when the dashboard session cookie decides (no Authorization header). */
export function takesDashboardPath(request: FastifyRequest): boolean {
  return request.headers.authorization === undefined && DASHBOARD_SESSION_COOKIE in parseCookies(request.headers.cookie);
}

/** The organization of a publicOrDashboard route's caller: the public principal's, or the signed-in user's. */
export function organizationOf(request: FastifyRequest): string {
  return request.principal?.organizationId ?? userActorOf(request).organizationId;
}

/** The authorized actor of a route declared with requirePolicy (never null there). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new AppError('dashboard_session_required');
  return request.actor;
}

/**
 * Whether the request's signed-in user also reaches `policy` (a route that does more for higher roles,
 * e.g. a member's create becomes a draft to submit, an admin's publishes). False without a user actor.
 */
export function userReaches(request: FastifyRequest, policy: PolicyId): boolean {
  return request.actorPolicyCheck?.(policy) ?? false;
}

/** The signed-in user of a policy route; service actors are refused (routes scoped to an organization). */
export function userActorOf(request: FastifyRequest): Extract<Actor, { kind: 'user' }> {
  const actor = actorOf(request);
  if (actor.kind !== 'user') throw new AppError('permission_denied', { message: 'This route needs a signed-in dashboard user.' });
  return actor;
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 1) continue;
    const name = part.slice(0, i).trim();
    if (!(name in out)) {
      try {
        out[name] = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        out[name] = part.slice(i + 1).trim();
      }
    }
  }
  return out;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1'];

/**
 * The approved dashboard origins: SERVICE_DASHBOARD_ORIGINS when set, else the service's own origin.
 * When that origin is a loopback name (the embedded default, `http://localhost:PORT`), both loopback
 * spellings of it are approved, `localhost` and `127.0.0.1` with the same scheme and port: the start
 * banner prints the address the server listens on (`127.0.0.1`), and either names this same server.
 */
export function dashboardOrigins(deps: { config: Config }): string[] {
  const configured = deps.config.env.SERVICE_DASHBOARD_ORIGINS?.split(',')
    .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
    .filter(Boolean);
  if (configured && configured.length > 0) return configured;
  const own = new URL(deps.config.publicBaseUrl);
  if (!LOOPBACK_NAMES.includes(own.hostname)) return [own.origin.toLowerCase()];
  return LOOPBACK_NAMES.map((name) => {
    const spelled = new URL(own.origin);
    spelled.hostname = name;
    return spelled.origin.toLowerCase();
  });
}

/** What a person refused for the Origin can do about it (the refusal's message). */
export function originRemedy(deps: { config: Config }, origin: string | undefined): string {
  const approved = dashboardOrigins(deps);
  const from = origin ? `${origin} is not an approved dashboard origin` : 'The request has no Origin header';
  return `${from}. Open the dashboard at ${approved[0]}/app/, or add this origin to SERVICE_DASHBOARD_ORIGINS (comma-separated; approved now: ${approved.join(', ')}).`;
}

export function isApprovedOrigin(deps: { config: Config }, origin: string | undefined): boolean {
  return typeof origin === 'string' && dashboardOrigins(deps).includes(origin.trim().replace(/\/+$/, '').toLowerCase());
}

function tokenMatches(given: string, expected: string | undefined): boolean {
  if (!expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  // compare equal-length buffers even on a length mismatch so timing does not reveal the length
  const ok = timingSafeEqual(a.length === b.length ? a : b, b);
  return ok && a.length === b.length;
}

const denied = (message: string) => new AppError('permission_denied', { message });

function legacyBearer(request: FastifyRequest): string | null {
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(request.headers.authorization ?? '');
  return m ? m[1]! : null;
}

/** The dashboard session token a request carries (cookie first, then the legacy Authorization bearer). */
export function sessionToken(request: FastifyRequest): { token: string; via: 'cookie' | 'bearer' } | null {
  const cookie = parseCookies(request.headers.cookie)[DASHBOARD_SESSION_COOKIE];
  if (cookie) return { token: cookie, via: 'cookie' };
  const bearer = legacyBearer(request);
  return bearer ? { token: bearer, via: 'bearer' } : null;
}

/**
 * The policy check of every route declared with `requirePolicy` or `publicOrDashboard`, added to each such route
 * as an onRequest hook of its own when the route is added: install it before any route.
 */
export function installDashboardAuth(app: FastifyInstance, deps: { config: Config }, port: DashboardAuthPort): void {
  const env = deps.config.env;

  const authorize = async (request: FastifyRequest, policy: PolicyId): Promise<Actor> => {
    const rule = port.rule(policy);
    const internal = request.headers['x-service-internal-token'];
    const principal = request.headers['x-service-principal-token'];
    if (internal !== undefined || principal !== undefined) {
      if (!rule.servicePrincipal) throw denied(`Policy ${policy} does not accept service tokens.`);
      if (request.headers.origin !== undefined) throw denied('Service tokens are not accepted from browsers.');
      if (typeof internal === 'string' && tokenMatches(internal, env.SERVICE_INTERNAL_TOKEN))
        return { kind: 'service', via: 'internal_token' };
      if (typeof principal === 'string' && tokenMatches(principal, env.SERVICE_PRINCIPAL_TOKEN))
        return { kind: 'service', via: 'principal_token' };
      throw denied('The service token is not valid.');
    }
    const presented = sessionToken(request);
    if (rule.internalOnly) {
      // nothing presented: say which credential the route takes
      if (!presented) throw new AppError('internal_token_required');
      throw denied(`Policy ${policy} is for internal callers only.`);
    }
    if (!presented) throw new AppError('dashboard_session_required');
    if (presented.via === 'cookie') {
      const origin = request.headers.origin;
      const safe = request.method === 'GET' || request.method === 'HEAD';
      if (origin === undefined ? !safe : !isApprovedOrigin(deps, origin))
        throw denied(`Credentialed requests need an approved dashboard Origin. ${originRemedy(deps, origin)}`);
    }
    const session = await port.resolveSession(presented.token);
    if (!session) throw new AppError('dashboard_session_required', { message: 'The dashboard session is missing, expired or revoked.' });
    if (!port.roleReaches(session.role, rule.minimumRole)) throw denied(`Policy ${policy} needs the ${rule.minimumRole} role.`);
    return {
      kind: 'user',
      organizationId: session.organizationId,
      userId: session.userId,
      email: session.email,
      role: session.role,
      sessionId: session.sessionId,
    };
  };

  app.decorateRequest('actor', null);
  app.decorateRequest('actorPolicyCheck', null);
  /** the actor, on the request, of a check that passed */
  const admitted = (request: FastifyRequest, actor: Actor): void => {
    request.actor = actor;
    if (actor.kind === 'user') request.actorPolicyCheck = (policy) => port.roleReaches(actor.role, port.rule(policy).minimumRole);
  };
  // each route's check is decided when the route is added: routes without a policy run no hook for it
  app.addHook('onRoute', (route) => {
    const policy = route.config?.policy;
    if (!policy) return;
    const sessionAlternative = route.config?.sessionAlternative === true;
    prependOnRequest(
      route,
      checkHook((request) =>
        // publicOrDashboard routes: the dashboard's check only for a request with the session cookie and no bearer
        sessionAlternative && !takesDashboardPath(request)
          ? undefined
          : authorize(request, policy).then((actor) => admitted(request, actor)),
      ),
    );
  });
}
