/**
 * Pinterest error bodies ({"code": number, "message": string}), token and scope checks and the failure
 * switches shared by the simulator's routes. The HTTP statuses follow the API v5 reference; the numeric
 * codes are the simulator's own stable values (clients must classify by status).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FailureQueue, SimulatorLedger } from '../../simulator-kit.js';
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

export interface PinSimContext {
  ledger: SimulatorLedger;
  failures: FailureQueue;
  closing: AbortSignal;
}

export function dropConnection(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket.destroy();
  return reply;
}

export function publicBase(request: FastifyRequest, prefix: string): string {
  return `${request.protocol}://${request.host}${prefix}`;
}

async function hold(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // simulator closing
  }
}

/** Records the request and applies the next injected failure ('answered' when it already answered). */
export async function beginOperation(
  ctx: PinSimContext,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<'answered' | { loseAnswer: boolean }> {
  ctx.ledger.record(operation, request.method, request.url);
  const rule = ctx.failures.take(operation);
  if (!rule) return { loseAnswer: false };
  switch (rule.kind) {
    case 'expired_token':
      sendPinError(reply, 401, PIN_ERRORS.authenticationFailed, 'Authentication failed.');
      return 'answered';
    case 'rate_limit':
      reply.header('x-ratelimit-limit', '100').header('x-ratelimit-remaining', '0');
      if (rule.retryAfterSeconds !== undefined) reply.header('retry-after', String(rule.retryAfterSeconds));
      sendPinError(reply, 429, PIN_ERRORS.rateLimited, 'You have exceeded your rate limit. Try again later.');
      return 'answered';
    case 'server_error':
      sendPinError(reply, 503, PIN_ERRORS.serviceUnavailable, 'Service unavailable. Please try again later.');
      return 'answered';
    case 'timeout':
      await hold(rule.delayMs ?? 30_000, ctx.closing);
      dropConnection(request, reply);
      return 'answered';
    case 'lost_response':
      return { loseAnswer: true };
  }
}

/** A valid bearer token this simulator issued, carrying one of the scopes the endpoint accepts. */
export function requireToken(
  state: PinterestSimulatorState,
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: string[],
): SimPinToken | null {
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
