/**
 * Access checks of the YouTube simulator: a valid bearer token it issued, the scope the method needs,
 * and the project's daily quota (each method costs the units the YouTube docs list).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INVALID_CREDENTIALS, QUOTA_MESSAGE, sendApiError } from './google-http.js';
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
