/**
 * Response headers of the OpenAPI document: declared once under components.headers and referenced
 * from every response that can carry them.
 */

const int = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

export const RESPONSE_HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  RequestId: {
    description: 'Identifier of this request (also `requestId` in error bodies); quote it in support requests.',
    schema: { type: 'string' },
  },
  RateLimitLimit: int('Requests allowed per window for this credential.'),
  RateLimitRemaining: int('Requests left in the current window.'),
  RateLimitReset: int('Seconds until the current window resets.'),
  XRateLimitLimit: int('Same as RateLimit-Limit (legacy name).'),
  XRateLimitRemaining: int('Same as RateLimit-Remaining (legacy name).'),
  XRateLimitReset: int('Reset time of the current window, as Unix epoch seconds.'),
  RetryAfter: int('Seconds to wait before retrying.'),
  IdempotentReplayed: {
    description: '`true` when this answer replays an earlier request with the same idempotency key.',
    schema: { type: 'string', enum: ['true'] },
  },
  XQuotaLimit: int('Daily quota of this tool API key and tool.'),
  XQuotaRemaining: int('Requests left in the daily quota.'),
  XQuotaReset: int('Reset time of the daily quota, as Unix epoch seconds.'),
};

const NAMES: Record<string, string> = {
  RequestId: 'x-request-id',
  RateLimitLimit: 'RateLimit-Limit',
  RateLimitRemaining: 'RateLimit-Remaining',
  RateLimitReset: 'RateLimit-Reset',
  XRateLimitLimit: 'X-RateLimit-Limit',
  XRateLimitRemaining: 'X-RateLimit-Remaining',
  XRateLimitReset: 'X-RateLimit-Reset',
  RetryAfter: 'Retry-After',
  IdempotentReplayed: 'Idempotent-Replayed',
  XQuotaLimit: 'X-Quota-Limit',
  XQuotaRemaining: 'X-Quota-Remaining',
  XQuotaReset: 'X-Quota-Reset',
};

/** Route schema flag (copied to the operation by @fastify/swagger): 200 may be an idempotent replay. */
export const IDEMPOTENT_REPLAY = 'x-idempotent-replay';

interface Op {
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
  [IDEMPOTENT_REPLAY]?: boolean;
}

/** Adds the headers each response of the operation can carry. */
export function addResponseHeaders(op: Op, isTool: boolean): void {
  const publicAuth = op.security?.some((s) => 'publicBearer' in s) ?? false;
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    const names = ['RequestId'];
    if (publicAuth)
      names.push('RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset', 'XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset');
    if (isTool) names.push('XQuotaLimit', 'XQuotaRemaining', 'XQuotaReset', 'XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset');
    if (status === '429' || status === '503') names.push('RetryAfter');
    if (status === '200' && op[IDEMPOTENT_REPLAY]) names.push('IdempotentReplayed');
    response.headers = { ...response.headers };
    for (const name of new Set(names)) response.headers[NAMES[name]!] = { $ref: `#/components/headers/${name}` };
  }
  delete op[IDEMPOTENT_REPLAY];
}

/** Header names (lower case) a response may carry only when its operation documents them. */
export const CHECKED_HEADERS = Object.values(NAMES).map((n) => n.toLowerCase());
