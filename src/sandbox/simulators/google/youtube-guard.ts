/**
 * Access checks of the YouTube simulator: a valid bearer token it issued, the scope the method needs,
 * and the project's daily quota (each method costs the units the YouTube docs list).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { beginOperation, dropConnection, INVALID_CREDENTIALS, QUOTA_MESSAGE, type SimContext, sendApiError } from './google-http.js';
import type { GoogleSimulatorState, SimAccessToken } from './google-state.js';

const SCOPE = 'https://www.googleapis.com/auth/';

/** Scopes that authorize each kind of call, per the methods' Authorization sections. */
export const SCOPES_FOR = {
  read: ['youtube.readonly', 'youtube', 'youtube.force-ssl', 'youtubepartner'],
  upload: ['youtube.upload', 'youtube', 'youtube.force-ssl', 'youtubepartner'],
  comment: ['youtube.force-ssl'],
} as const;

export function requireToken(
  state: GoogleSimulatorState,
  request: FastifyRequest,
  reply: FastifyReply,
  need: keyof typeof SCOPES_FOR,
): SimAccessToken | null {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header);
  if (!match?.[1]) {
    sendApiError(reply, 401, 'required', 'Request is missing required authentication credential.', 'global');
    return null;
  }
  const token = state.validAccessToken(match[1]);
  if (!token) {
    sendApiError(reply, 401, 'authError', INVALID_CREDENTIALS, 'global');
    return null;
  }
  const allowed: readonly string[] = SCOPES_FOR[need];
  if (!token.scopes.some((s) => s.startsWith(SCOPE) && allowed.includes(s.slice(SCOPE.length)))) {
    sendApiError(reply, 403, 'insufficientPermissions', 'Request had insufficient authentication scopes.', 'global');
    return null;
  }
  return token;
}

/** Spends quota units; answers 403 quotaExceeded when the day's quota is gone. */
export function chargeQuota(state: GoogleSimulatorState, reply: FastifyReply, units: number): boolean {
  if (state.quotaRemaining < units) {
    sendApiError(reply, 403, 'quotaExceeded', QUOTA_MESSAGE, 'youtube.quota');
    return false;
  }
  state.quotaRemaining -= units;
  return true;
}

export interface OpenedCall {
  token: SimAccessToken;
  loseAnswer: boolean;
}

/**
 * The common start of a Data API method: records the request and applies any injected failure, then checks
 * the token's scope and, when `quotaUnits` is given, charges it. Null when the reply was already sent.
 */
export async function openApiCall(
  state: GoogleSimulatorState,
  ctx: SimContext,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
  need: keyof typeof SCOPES_FOR,
  quotaUnits?: number,
): Promise<OpenedCall | null> {
  const begun = await beginOperation(ctx, operation, request, reply, 'api');
  if (begun === 'answered') return null;
  const token = requireToken(state, request, reply, need);
  if (!token) return null;
  if (quotaUnits !== undefined && !chargeQuota(state, reply, quotaUnits)) return null;
  return { token, loseAnswer: begun.loseAnswer };
}

/** Sends the answer, or drops the connection instead when the injected failure loses it. */
export function answerCall(request: FastifyRequest, reply: FastifyReply, call: OpenedCall, body: unknown): FastifyReply {
  if (call.loseAnswer) return dropConnection(request, reply);
  return reply.send(body);
}
