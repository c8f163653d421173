/**
 * Pinterest error bodies ({"code": number, "message": string}), token and scope checks and the failure
 * switches shared by the simulator's routes. The HTTP statuses follow the API v5 reference; the numeric
 * codes are the simulator's own stable values (clients must classify by status).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AnsweringFailure, beginOperation as beginSimOperation, dropConnection, type FailureContext } from '../../simulator-kit.js';
import type { PinterestSimulatorState, SimPinToken } from './pinterest-state.js';

export const PIN_ERRORS = {
  invalidParameters: 1,
  authenticationFailed: 2,
  authorizationFailed: 3,
  imageBroken: 4,
  notFound: 5,
  serviceUnavailable: 7,
  rateLimited: 8,
} as const;

export function sendPinError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.code(status).type('application/json').send({ code, message });
}

export type PinSimContext = FailureContext;
export { dropConnection };

export function publicBase(request: FastifyRequest, prefix: string): string {
  return `${request.protocol}://${request.host}${prefix}`;
}

/** Pinterest's answer to an injected failure. */
function failureAnswer(rule: AnsweringFailure, reply: FastifyReply): void {
  switch (rule.kind) {
    case 'expired_token':
      sendPinError(reply, 401, PIN_ERRORS.authenticationFailed, 'Authentication failed.');
      return;
    case 'rate_limit':
      reply.header('x-ratelimit-limit', '100').header('x-ratelimit-remaining', '0');
      if (rule.retryAfterSeconds !== undefined) reply.header('retry-after', String(rule.retryAfterSeconds));
      sendPinError(reply, 429, PIN_ERRORS.rateLimited, 'You have exceeded your rate limit. Try again later.');
      return;
    case 'server_error':
      sendPinError(reply, 503, PIN_ERRORS.serviceUnavailable, 'Service unavailable. Please try again later.');
      return;
  }
}

/** Records the request and applies the next injected failure ('answered' when it already answered). */
export function beginOperation(
  ctx: PinSimContext,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<'answered' | { loseAnswer: boolean }> {
  return beginSimOperation(ctx, operation, request, reply, failureAnswer);
}

/** A valid bearer token this simulator issued, carrying one of the scopes the endpoint accepts. */
function requireToken(state: PinterestSimulatorState, request: FastifyRequest, reply: FastifyReply, scopes: string[]): SimPinToken | null {
  const match = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
  const token = match?.[1] ? state.validAccessToken(match[1]) : null;
  if (!token) {
    sendPinError(reply, 401, PIN_ERRORS.authenticationFailed, 'Authentication failed.');
    return null;
  }
  if (!token.scopes.some((s) => scopes.includes(s))) {
    sendPinError(reply, 403, PIN_ERRORS.authorizationFailed, `Not authorized: this endpoint needs ${scopes.join(' or ')}.`);
    return null;
  }
  return token;
}

/**
 * The start of an API operation: the request recorded and the next injected failure applied, then the
 * bearer token checked for one of `scopes`; null when either has answered already.
 */
export async function beginAuthorized(
  ctx: PinSimContext,
  state: PinterestSimulatorState,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: string[],
): Promise<{ begun: { loseAnswer: boolean }; token: SimPinToken } | null> {
  const begun = await beginOperation(ctx, operation, request, reply);
  if (begun === 'answered') return null;
  const token = requireToken(state, request, reply, scopes);
  if (!token) return null;
  return { begun, token };
}
