import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  DASHBOARD_SESSION_COOKIE,
  isApprovedOrigin,
  originRemedy,
  parseCookies,
  requirePolicy,
  sessionToken,
  userActorOf,
} from '../../http/dashboard-auth.js';
import { errorResponses } from '../../http/shared-schemas.js';
import { AppError } from '../../platform/errors.js';
import type { AppDeps } from '../app-deps.js';
import {
  BrowserSessionExchangeRequest,
  BrowserSessionExchangeResponse,
  BrowserSessionStartRequest,
  BrowserSessionStartResponse,
  DashboardUser,
  MeResponse,
} from './auth.schemas.js';
import type { SessionService } from './sessions.service.js';
import { EXCHANGE_TTL_MS, type SignInService } from './sign-in.service.js';

const EXCHANGE_COOKIE = 'service_browser_session_exchange';
export const EXCHANGE_PATH = '/v1/auth';

/** Set-Cookie value: HttpOnly, host-only (never a Domain attribute), Secure when the service is served over https. */
export function cookie(deps: Pick<AppDeps, 'config'>, name: string, value: string, opts: { path: string; maxAgeSeconds: number }): string {
  const secure = deps.config.publicBaseUrl.startsWith('https:') ? '; Secure' : '';
  return `${name}=${value}; Path=${opts.path}; Max-Age=${opts.maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

/**
 * The answer of a completed browser sign-in: not cached, the one-time login binding cookie cleared and the
 * dashboard session cookie set.
 */
export function setSignedInCookies(deps: Pick<AppDeps, 'config'>, reply: FastifyReply, bindingCookie: string, sessionToken: string): void {
  reply.header('cache-control', 'no-store');
  reply.header('set-cookie', [
    cookie(deps, bindingCookie, '', { path: EXCHANGE_PATH, maxAgeSeconds: 0 }),
    cookie(deps, DASHBOARD_SESSION_COOKIE, sessionToken, {
      path: '/',
      maxAgeSeconds: deps.config.env.SERVICE_DASHBOARD_SESSION_ABSOLUTE_SECONDS,
    }),
  ]);
}

export function normalizedOrigin(request: FastifyRequest): string | undefined {
  const o = request.headers.origin;
  return typeof o === 'string' ? o.trim().replace(/\/+$/, '').toLowerCase() : undefined;
}

export function requireApprovedOrigin(deps: Pick<AppDeps, 'config'>, request: FastifyRequest): string {
  const origin = normalizedOrigin(request);
  if (!origin || !isApprovedOrigin(deps, origin)) throw new AppError('permission_denied', { message: originRemedy(deps, origin) });
  return origin;
}

export function validReturnTo(deps: Pick<AppDeps, 'config'>, value: string): boolean {
  if (value.startsWith('/') && !value.startsWith('//') && !value.includes('\\')) return true;
  try {
    return isApprovedOrigin(deps, new URL(value).origin);
  } catch {
    return false;
  }
}

function clearCookies(deps: Pick<AppDeps, 'config'>, reply: FastifyReply) {
  reply.header('set-cookie', [
    cookie(deps, EXCHANGE_COOKIE, '', { path: EXCHANGE_PATH, maxAgeSeconds: 0 }),
    cookie(deps, DASHBOARD_SESSION_COOKIE, '', { path: '/', maxAgeSeconds: 0 }),
  ]);
}

export function registerAuthRoutes(
  root: FastifyInstance,
  deps: Pick<AppDeps, 'config'>,
  sessions: SessionService,
  signIn: SignInService,
): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(DashboardUser);

  app.post(
    '/v1/auth/browser-session/start',
    {
      config: { validationCode: 'invalid_browser_session_request' },
      schema: {
        operationId: 'startBrowserSession',
        tags: ['Auth'],
        summary: 'Check email and password; answer a single-use code + nonce and set the exchange cookie',
        description:
          'Needs an approved dashboard Origin (SERVICE_DASHBOARD_ORIGINS). Sets `service_browser_session_exchange` (HttpOnly, SameSite=Lax, Path=/v1/auth, 60 s). Attempts are limited per client address and per account.',
        security: [],
        body: BrowserSessionStartRequest,
        response: {
          200: BrowserSessionStartResponse,
          ...errorResponses('invalid_request', 'sign_in_failed', 'permission_denied', 'public_api_rate_limited', 'internal_server_error'),
        },
      },
    },
    async (request, reply) => {
      const origin = requireApprovedOrigin(deps, request);
      if (request.body.returnTo !== undefined && !validReturnTo(deps, request.body.returnTo))
        throw new AppError('invalid_request', {
          message: 'returnTo must be a path or a URL on an approved dashboard origin.',
          fields: [{ path: ['returnTo'], source: 'body' }],
        });
      const r = await signIn.start({ email: request.body.email, password: request.body.password, origin, clientAddress: request.ip });
      reply.header('cache-control', 'no-store');
      reply.header('set-cookie', cookie(deps, EXCHANGE_COOKIE, r.binding, { path: EXCHANGE_PATH, maxAgeSeconds: EXCHANGE_TTL_MS / 1000 }));
      return { authorizationCode: r.authorizationCode, nonce: r.nonce, expiresAt: r.expiresAt.toISOString() };
    },
  );

  app.post(
    '/v1/auth/browser-session/exchange',
    {
      config: { validationCode: 'invalid_browser_session_request' },
      schema: {
        operationId: 'exchangeBrowserSession',
        tags: ['Auth'],
        summary: 'Exchange the single-use code for a dashboard session cookie',
        description:
          'Needs the `service_browser_session_exchange` cookie set by start and the same Origin. Clears that cookie and sets the host-only HttpOnly `service_dashboard_session` cookie. Replays, a wrong nonce, another origin, an expired or missing cookie all answer the same 400 browser_session_exchange_failed.',
        security: [{ browserSessionExchangeCookie: [] }],
        body: BrowserSessionExchangeRequest,
        response: {
          200: BrowserSessionExchangeResponse,
          ...errorResponses('invalid_request', 'browser_session_exchange_failed', 'internal_server_error'),
        },
      },
    },
    async (request, reply) => {
      const r = await signIn.exchange({
        authorizationCode: request.body.authorizationCode,
        nonce: request.body.nonce,
        binding: parseCookies(request.headers.cookie)[EXCHANGE_COOKIE],
        origin: normalizedOrigin(request),
      });
      setSignedInCookies(deps, reply, EXCHANGE_COOKIE, r.token);
      return r.body;
    },
  );

  app.post(
    '/v1/auth/logout',
    {
      schema: {
        operationId: 'logout',
        tags: ['Auth'],
        summary: 'Revoke the dashboard session and clear both cookies',
        security: [{ dashboardSessionCookie: [] }, { dashboardSession: [] }],
        response: {
          204: { type: 'null', description: 'Signed out (also when no session was presented).' },
          ...errorResponses('permission_denied', 'internal_server_error'),
        },
      },
    },
    async (request, reply) => {
      const presented = sessionToken(request);
      if (presented?.via === 'cookie' && request.headers.origin !== undefined) requireApprovedOrigin(deps, request);
      if (presented) {
        const s = await sessions.resolve(presented.token);
        if (s) await sessions.revoke(s.organizationId, s.sessionId);
      }
      clearCookies(deps, reply);
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/me',
    {
      config: requirePolicy('dashboard.session'),
      schema: {
        operationId: 'getMe',
        tags: ['Auth'],
        summary: 'The signed-in user, organization and role',
        security: [{ dashboardSessionCookie: [] }, { dashboardSession: [] }],
        response: { 200: MeResponse, ...errorResponses('dashboard_session_required', 'permission_denied', 'internal_server_error') },
      },
    },
    async (request, reply) => {
      const actor = userActorOf(request);
      reply.header('cache-control', 'no-store');
      return signIn.me(actor.organizationId, actor.userId);
    },
  );
}
