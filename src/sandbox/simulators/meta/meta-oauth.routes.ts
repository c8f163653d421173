/**
 * Simulated OAuth for the three Meta login flows. Authorization approves at once (sandbox behaviour)
 * and redirects to redirect_uri with code and state; token endpoints follow the documented shapes:
 * Facebook (GET oauth/access_token, fb_exchange_token), Instagram Login (POST api.instagram.com
 * oauth/access_token, ig_exchange_token, ig_refresh_token), Threads (th_exchange_token, th_refresh_token).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Answer, handler, params, type RouteContext, SimError, validateToken } from './meta-http.js';
import type { Family, TokenKind } from './meta-state.js';

export interface SimApp {
  clientId: string;
  clientSecret: string;
}

const SHORT_TTL = 3600;
const LONG_TTL = 60 * 24 * 3600;

function splitScopes(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

export function registerMetaOAuthRoutes(app: FastifyInstance, ctx: RouteContext, sim: SimApp): void {
  const { state } = ctx;
  const subjects: Record<Family, { id: string; kind: TokenKind }> = {
    facebook: { id: state.seed.fbUserId, kind: 'user' },
    instagram: { id: state.seed.igStandaloneId, kind: 'ig_user' },
    threads: { id: state.seed.threadsUserId, kind: 'threads_user' },
  };

  const checkApp = (p: Record<string, string>, needSecret: boolean) => {
    if (p.client_id !== sim.clientId)
      throw new SimError(400, {
        message: 'Error validating application. Invalid application ID.',
        code: 101,
      });
    if (needSecret && p.client_secret !== sim.clientSecret)
      throw new SimError(400, {
        message: 'Error validating client secret.',
        code: 101,
      });
  };

  const authorize = (family: Family) =>
    handler(ctx, family, 'authorize', (req: FastifyRequest): Answer => {
      const p = params(req);
      checkApp(p, false);
      if (!p.redirect_uri)
        throw new SimError(400, {
          message: 'Missing redirect_uri parameter.',
          code: 191,
        });
      if (p.response_type && p.response_type !== 'code')
        throw new SimError(400, {
          message: 'Unsupported response_type',
          code: 100,
        });
      const subject = subjects[family];
      const code = state.issueCode({
        family,
        clientId: p.client_id!,
        redirectUri: p.redirect_uri,
        scopes: splitScopes(p.scope),
        subjectId: subject.id,
      });
      const target = new URL(p.redirect_uri);
      target.searchParams.set('code', code);
      if (p.state) target.searchParams.set('state', p.state);
      return { redirect: target.toString() };
    });

  const redeem = (family: Family, p: Record<string, string>) => {
    checkApp(p, true);
    const code = p.code ? state.codes.get(p.code) : undefined;
    if (!code || code.family !== family || code.expiresAt < state.now()) {
      throw new SimError(400, {
        message: 'Invalid verification code format.',
        code: 100,
        subcode: 36007,
      });
    }
    if (code.used)
      throw new SimError(400, {
        message: 'This authorization code has been used.',
        code: 100,
        subcode: 36009,
      });
    if (code.redirectUri !== p.redirect_uri) {
      throw new SimError(400, {
        message:
          'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        code: 100,
        subcode: 36008,
      });
    }
    code.used = true;
    return state.issueToken({
      family,
      kind: subjects[family].kind,
      subjectId: code.subjectId,
      userId: null,
      scopes: code.scopes,
      longLived: false,
      ttlSeconds: SHORT_TTL,
    });
  };

  const extend = (family: Family, req: FastifyRequest, value: string | undefined, needSecret: boolean) => {
    const p = params(req);
    if (needSecret && p.client_secret !== sim.clientSecret)
      throw new SimError(400, {
        message: 'Error validating client secret.',
        code: 101,
      });
    const source = validateToken(state, value, family);
    const long = state.issueToken({
      family,
      kind: source.kind,
      subjectId: source.subjectId,
      userId: source.userId,
      scopes: source.scopes,
      longLived: true,
      ttlSeconds: LONG_TTL,
    });
    return {
      access_token: long.token,
      token_type: 'bearer',
      expires_in: LONG_TTL,
    };
  };

  /** GET {path} for one grant_type: a long-lived token from a short-lived one (with the app secret), or a refreshed one. */
  const extendRoute = (family: Family, path: string, grantType: string, needSecret: boolean) =>
    app.get(
      path,
      handler(ctx, family, 'token', (req) => {
        if (params(req).grant_type !== grantType) throw new SimError(400, { message: 'Unsupported grant_type', code: 100 });
        return { body: extend(family, req, params(req).access_token, needSecret) };
      }),
    );

  // Facebook Login
  app.get('/facebook/www/:version/dialog/oauth', authorize('facebook'));
  app.get(
    '/facebook/graph/:version/oauth/access_token',
    handler(ctx, 'facebook', 'token', (req) => {
      const p = params(req);
      if (p.grant_type === 'fb_exchange_token') {
        checkApp(p, true);
        return { body: extend('facebook', req, p.fb_exchange_token, true) };
      }
      const t = redeem('facebook', p);
      return {
        body: {
          access_token: t.token,
          token_type: 'bearer',
          expires_in: SHORT_TTL,
        },
      };
    }),
  );

  // Business Login for Instagram
  app.get('/instagram/api/oauth/authorize', authorize('instagram'));
  app.post(
    '/instagram/api/oauth/access_token',
    handler(ctx, 'instagram', 'token', async (req) => {
      const p = params(req);
      if (p.grant_type !== 'authorization_code') throw new SimError(400, { message: 'Invalid grant_type', code: 100 });
      try {
        const t = redeem('instagram', p);
        return {
          body: {
            data: [
              {
                access_token: t.token,
                user_id: t.subjectId,
                permissions: t.scopes.join(','),
              },
            ],
          },
        };
      } catch (err) {
        // this endpoint answers errors in its own flat shape
        if (err instanceof SimError)
          return {
            status: 400,
            body: {
              error_type: 'OAuthException',
              code: 400,
              error_message: err.init.message,
            },
          };
        throw err;
      }
    }),
  );
  extendRoute('instagram', '/instagram/graph/access_token', 'ig_exchange_token', true);
  extendRoute('instagram', '/instagram/graph/refresh_access_token', 'ig_refresh_token', false);

  // Threads
  app.get('/threads/www/oauth/authorize', authorize('threads'));
  app.post(
    '/threads/graph/oauth/access_token',
    handler(ctx, 'threads', 'token', (req) => {
      const p = params(req);
      if (p.grant_type !== 'authorization_code') throw new SimError(400, { message: 'Invalid grant_type', code: 100 });
      const t = redeem('threads', p);
      return { body: { access_token: t.token, user_id: t.subjectId } };
    }),
  );
  extendRoute('threads', '/threads/graph/access_token', 'th_exchange_token', true);
  extendRoute('threads', '/threads/graph/refresh_access_token', 'th_refresh_token', false);
}
