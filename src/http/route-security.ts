/**
 * A public route's security requirement and authentication errors, derived from its `config` in one
 * place instead of written on every route (as `x-scope` and `x-policy` are, in openapi.ts):
 * - `config.auth` (an API key or OAuth token with a scope): `schema.security` is `publicBearer`, and the
 *   public checks' refusals (PUBLIC_AUTH_ERRORS) join the route's error responses;
 * - `config.sessionAlternative` too (publicOrDashboard: or the dashboard session cookie under a policy):
 *   `dashboardSessionCookie` is an alternative, and the session's refusals (SESSION_AUTH_ERRORS) are listed first.
 * A route that writes `schema.security` keeps it (the signed media URL route takes no credential at all).
 * Per status, the codes read: the session's, the route's own (from `errorResponses`), the public ones.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { ErrorCode } from '../platform/errors.js';
import { ERROR_CODES, errorResponses, PUBLIC_AUTH_ERRORS, SESSION_AUTH_ERRORS } from './shared-schemas.js';

type Security = Array<Record<string, string[]>>;

const PUBLIC: Security = [{ publicBearer: [] }];
const PUBLIC_OR_SESSION: Security = [{ publicBearer: [] }, { dashboardSessionCookie: [] }];

const isError = (status: string) => /^[45]\d\d$/.test(status);

/** The codes a route's response entries were made from (errorResponses); an error entry written otherwise is refused. */
function routeCodes(route: string, response: Record<string, unknown>): ErrorCode[] {
  const codes: ErrorCode[] = [];
  for (const [status, entry] of Object.entries(response)) {
    if (!isError(status)) continue;
    const listed = (entry as { [ERROR_CODES]?: ErrorCode[] } | undefined)?.[ERROR_CODES];
    if (!listed) throw new Error(`${route}: the ${status} answer of an authenticated route must come from errorResponses(...)`);
    codes.push(...listed);
  }
  return codes;
}

function deriveRouteSecurity(route: Pick<RouteOptions, 'method' | 'url' | 'config' | 'schema'>): void {
  const auth = route.config?.auth;
  if (!auth || !route.schema) return;
  const session = route.config?.sessionAlternative === true;
  const schema = route.schema as { security?: Security; response?: Record<string, unknown> };
  schema.security ??= session ? PUBLIC_OR_SESSION : PUBLIC;
  const response = schema.response ?? {};
  const own = routeCodes(`${String(route.method)} ${route.url}`, response);
  const errors = errorResponses(...(session ? SESSION_AUTH_ERRORS : []), ...own, ...PUBLIC_AUTH_ERRORS);
  const success = Object.fromEntries(Object.entries(response).filter(([status]) => !isError(status)));
  schema.response = { ...success, ...errors };
}

/** Installs the derivation for every route registered after it (before the OpenAPI plugin collects them). */
export function installRouteSecurity(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => deriveRouteSecurity(route));
}
