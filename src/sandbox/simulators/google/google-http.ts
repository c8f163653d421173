/**
 * Google's error bodies and the failure switches, shared by the simulator's OAuth and YouTube routes.
 * API errors: {"error":{"code","message","errors":[{"message","domain","reason"}],"status"}}.
 * OAuth errors: {"error":"invalid_grant","error_description":"..."}.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AnsweringFailure, beginOperation as beginSimOperation, dropConnection, type FailureContext } from '../../simulator-kit.js';

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function googleApiError(code: number, reason: string, message: string, domain = 'youtube.api') {
  return {
    error: {
      code,
      message,
      errors: [{ message, domain, reason }],
      status: STATUS_NAMES[code] ?? 'UNKNOWN',
    },
  };
}

export function sendApiError(reply: FastifyReply, code: number, reason: string, message: string, domain?: string) {
  if (code === 401) reply.header('www-authenticate', 'Bearer realm="https://accounts.google.com/", error="invalid_token"');
  return reply
    .code(code)
    .type('application/json; charset=UTF-8')
    .send(googleApiError(code, reason, message, domain));
}

export const INVALID_CREDENTIALS =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.';
export const QUOTA_MESSAGE = 'The request cannot be completed because you have exceeded your quota.';

export type SimContext = FailureContext;
export { dropConnection };

/** Google's answer to an injected failure: the OAuth server's or the YouTube Data API's error. */
function failureAnswer(kind: 'api' | 'oauth') {
  return (rule: AnsweringFailure, reply: FastifyReply): void => {
    switch (rule.kind) {
      case 'expired_token':
        if (kind === 'oauth') {
          reply.code(400).send({
            error: 'invalid_grant',
            error_description: 'Token has been expired or revoked.',
          });
        } else {
          sendApiError(reply, 401, 'authError', INVALID_CREDENTIALS, 'global');
        }
        return;
      case 'rate_limit':
        if (kind === 'oauth') {
          reply.code(429).header('retry-after', String(rule.retryAfterSeconds ?? 30));
          reply.send({
            error: 'rate_limit_exceeded',
            error_description: 'Rate limit exceeded.',
          });
        } else if (rule.retryAfterSeconds !== undefined) {
          // short-term limit: answered as 429 rateLimitExceeded with Retry-After
          reply.header('retry-after', String(rule.retryAfterSeconds));
          sendApiError(
            reply,
            429,
            'rateLimitExceeded',
            'The request cannot be completed because you have exceeded the rate limit.',
            'youtube.quota',
          );
        } else {
          sendApiError(reply, 403, 'quotaExceeded', QUOTA_MESSAGE, 'youtube.quota');
        }
        return;
      case 'server_error':
        if (kind === 'oauth')
          reply.code(503).send({
            error: 'temporarily_unavailable',
            error_description: 'Try again later.',
          });
        else sendApiError(reply, 503, 'backendError', 'The service is currently unavailable.', 'global');
        return;
    }
  };
}

/** Records the request and applies the next injected failure for this operation (simulator-kit's beginOperation). */
export function beginOperation(
  ctx: SimContext,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: 'api' | 'oauth',
): Promise<'answered' | { loseAnswer: boolean }> {
  return beginSimOperation(ctx, operation, request, reply, failureAnswer(kind));
}

/** The origin and mount prefix the client used, for absolute URLs in answers (Location, upload_url). */
export function publicBase(request: FastifyRequest, prefix: string): string {
  return `${request.protocol}://${request.host}${prefix}`;
}
