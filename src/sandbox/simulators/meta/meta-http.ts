/**
 * Request plumbing shared by the Meta simulator routes: Graph error bodies, access-token checks, and
 * the failure switches (expired token, rate limit, 5xx, timeout, lost response).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AnsweringFailure, beginOperation, dropConnection, type FailureContext } from '../../simulator-kit.js';
import type { Family, MetaSimState, SimToken } from './meta-state.js';

export interface GraphErrorInit {
  message: string;
  code: number;
  subcode?: number;
  type?: string;
  isTransient?: boolean;
  userTitle?: string;
  userMessage?: string;
}

export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly init: GraphErrorInit,
    readonly headers: Record<string, string> = {},
  ) {
    super(init.message);
  }
}

export function graphErrorBody(init: GraphErrorInit): Record<string, unknown> {
  const error: Record<string, unknown> = {
    message: init.message,
    type: init.type ?? 'OAuthException',
    code: init.code,
  };
  if (init.subcode !== undefined) error.error_subcode = init.subcode;
  if (init.isTransient !== undefined) error.is_transient = init.isTransient;
  if (init.userTitle) error.error_user_title = init.userTitle;
  if (init.userMessage) error.error_user_msg = init.userMessage;
  error.fbtrace_id = randomBytes(8).toString('base64url');
  return { error };
}

/** code 100 "object does not exist / missing permissions", Graph's answer for foreign or unknown ids */
export function unsupported(method: string, id: string): SimError {
  return new SimError(400, {
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
  });
}

/** code 9007 / subcode 2207027: a container (or carousel child) is not FINISHED yet */
export function mediaNotReady(): SimError {
  return new SimError(400, {
    message: 'Media ID is not available',
    code: 9007,
    subcode: 2207027,
    userTitle: 'Media not ready',
    userMessage: 'The media is not ready for publishing, please wait for a moment.',
  });
}

export function invalidParam(message: string, subcode?: number, userMessage?: string): SimError {
  return new SimError(400, {
    message: `(#100) ${message}`,
    code: 100,
    subcode,
    userMessage,
  });
}

export function missingPermission(scope: string, code: 10 | 200 = 200): SimError {
  return new SimError(403, {
    message:
      code === 10
        ? '(#10) Application does not have permission for this action'
        : `(#200) Requires ${scope} permission to manage the object`,
    code,
  });
}

function expiredTokenError(at: number): SimError {
  return new SimError(400, {
    message: `Error validating access token: Session has expired on ${new Date(at).toUTCString()}. The current time is ${new Date().toUTCString()}.`,
    code: 190,
    subcode: 463,
  });
}

export function params(req: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const src of [req.query, req.body]) {
    if (src && typeof src === 'object')
      for (const [k, v] of Object.entries(src as Record<string, unknown>)) if (v !== undefined) out[k] = String(v);
  }
  return out;
}

/** Validates the access token the way Graph does: missing, unknown, other family, expired. */
export function authenticate(state: MetaSimState, req: FastifyRequest, family: Family): SimToken {
  const p = params(req);
  const header = req.headers.authorization?.replace(/^(Bearer|OAuth)\s+/i, '');
  return validateToken(state, p.access_token ?? header, family);
}

export function validateToken(state: MetaSimState, value: string | undefined, family: Family): SimToken {
  if (!value)
    throw new SimError(400, {
      message: 'An active access token must be used to query information about the current user.',
      code: 2500,
    });
  const token = state.tokens.get(value);
  if (!token || token.family !== family) {
    throw new SimError(400, {
      message: 'Invalid OAuth access token - Cannot parse access token',
      code: 190,
    });
  }
  if (token.expiresAt !== null && state.now() >= token.expiresAt) throw expiredTokenError(token.expiresAt);
  return token;
}

export function requireScope(token: SimToken, scope: string, code: 10 | 200 = 200): void {
  if (!token.scopes.includes(scope)) throw missingPermission(scope, code);
}

export interface RouteContext extends FailureContext {
  state: MetaSimState;
}

/** business-use-case rate-limit code per family: 80001 Pages, 80002 Instagram, Threads uses app-level 4 */
const RATE_CODES: Record<Family, number> = {
  facebook: 80001,
  instagram: 80002,
  threads: 4,
};

function send(reply: FastifyReply, err: SimError): void {
  reply.code(err.status).headers(err.headers).send(graphErrorBody(err.init));
}

/** The Graph API's error for an injected failure. */
function failureError(ctx: RouteContext, family: Family, rule: AnsweringFailure): SimError {
  if (rule.kind === 'expired_token') return expiredTokenError(ctx.state.now() - 1000);
  if (rule.kind === 'server_error')
    return new SimError(500, {
      message: 'An unexpected error has occurred. Please retry your request later.',
      code: 2,
      isTransient: true,
    });
  const minutes = Math.max(1, Math.ceil((rule.retryAfterSeconds ?? 60) / 60));
  const usage = JSON.stringify({
    [ctx.state.seed.pageId]: [
      {
        type: family === 'facebook' ? 'pages' : 'instagram',
        call_count: 100,
        total_cputime: 12,
        total_time: 30,
        estimated_time_to_regain_access: minutes,
      },
    ],
  });
  const code = RATE_CODES[family];
  return new SimError(
    400,
    {
      message: code === 4 ? '(#4) Application request limit reached' : 'User request limit reached',
      code,
      isTransient: true,
    },
    { 'x-business-use-case-usage': usage },
  );
}

export type Answer = { status?: number; body: unknown; headers?: Record<string, string> } | { redirect: string };

/** Wraps a route body with the ledger, failure switches (simulator-kit's beginOperation) and Graph error rendering. */
export function handler(ctx: RouteContext, family: Family, operation: string, fn: (req: FastifyRequest) => Promise<Answer> | Answer) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const begun = await beginOperation(ctx, operation, req, reply, (rule, r) => send(r, failureError(ctx, family, rule)));
    if (begun === 'answered') return;
    try {
      const answer = await fn(req);
      if (begun.loseAnswer) return dropConnection(req, reply);
      if ('redirect' in answer) return reply.redirect(answer.redirect, 302);
      return reply
        .code(answer.status ?? 200)
        .headers(answer.headers ?? {})
        .send(answer.body);
    } catch (err) {
      if (err instanceof SimError) return send(reply, err);
      throw err;
    }
  };
}
