/**
 * The request pipeline shared by both tools, after authentication and body parsing:
 *   Idempotency-Key (replay / 409 conflict / 409 in progress) -> one request at a time (429 concurrency)
 *   -> minute limit (429 rate_limited) -> the tool's validation (400) -> daily quota (429 quota_exceeded)
 *   -> work -> quota charged -> 200, stored for replay when an Idempotency-Key was sent.
 * Only 2xx outcomes are stored; 400/401/403/409/429 and server errors drop the in-progress marker so that
 * a retry with the same key runs again.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import type { Db } from '../database.js';
import type { ToolPrincipal } from './tool-auth.js';
import { type IdempotencyScope, toolIdempotencyRepository } from './tool-idempotency.repository.js';
import { IDEMPOTENCY_TTL_MS, parseIdempotencyKey, requestFingerprint } from './tool-idempotency.rules.js';
import { type LimitSnapshot, limitHeaders, type ToolLimiter } from './tool-limiter.service.js';
import type { ToolName } from './tool-limits.js';

/** What a tool decides about a request once it may run. */
export type ToolPlan =
  | { kind: 'invalid'; message: string }
  /**
   * units: quota units the work will use (0 allowed); run: the work, returning an error message or a body
   * (`members`: the text of the body's members, at least one, without the braces, for a tool that writes it itself)
   */
  | { kind: 'run'; units: number; run: () => ToolOutcome | Promise<ToolOutcome> };

type ToolOutcome = { ok: false; message: string } | ToolBody;

type ToolBody = { ok: true; body: Record<string, unknown> } | { ok: true; members: string };

/**
 * The answer's text: the tool's body with the quota and rate-limit state after its members. A tool's own
 * text is joined as it is (cutting a closing brace off a whole object's text copied the ~14 KB of a QR code).
 */
function answerText(result: ToolBody, snapshot: LimitSnapshot): string {
  if (!('members' in result)) return JSON.stringify({ ...result.body, quota: snapshot.quota, rateLimit: snapshot.rateLimit });
  return `{${result.members},"quota":${JSON.stringify(snapshot.quota)},"rateLimit":${JSON.stringify(snapshot.rateLimit)}}`;
}

export interface ToolRunnerDeps {
  db: Db;
  limiter: ToolLimiter;
  now: () => Date;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function limitError(
  code: 'rate_limited' | 'quota_exceeded' | 'concurrency_limited',
  message: string,
  snapshot: LimitSnapshot,
  retryAfter: number,
): AppError {
  return new AppError(code, {
    message,
    headers: { ...limitHeaders(snapshot), 'retry-after': String(retryAfter) },
    details: { quota: snapshot.quota, rateLimit: snapshot.rateLimit },
  });
}

function quotaRefusal(units: number, snapshot: LimitSnapshot, retryAfter: number): AppError {
  return limitError(
    'quota_exceeded',
    `This request needs ${units} of the ${snapshot.quota.remaining} ${snapshot.quota.unit} left today; nothing was charged.`,
    snapshot,
    retryAfter,
  );
}

export class ToolRequestRunner {
  constructor(private readonly deps: ToolRunnerDeps) {}

  async handle(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: ToolPrincipal,
    tool: ToolName,
    plan: (body: unknown) => ToolPlan,
  ): Promise<FastifyReply> {
    const idempotency = parseIdempotencyKey(request.headers['idempotency-key']);
    if (!idempotency.ok) throw new AppError('invalid_request', { message: idempotency.message });
    const body = request.body;
    let scope: IdempotencyScope | null = null;
    if (idempotency.key !== null) {
      scope = { apiKeyId: principal.apiKeyId, tool, key: idempotency.key };
      const outcome = await toolIdempotencyRepository.begin(
        this.deps.db,
        scope,
        requestFingerprint(body ?? null),
        this.deps.now(),
        IDEMPOTENCY_TTL_MS,
      );
      if (outcome.kind === 'replay') {
        return reply
          .code(outcome.response.status)
          .headers(outcome.response.headers)
          .header('idempotent-replayed', 'true')
          .type(JSON_TYPE)
          .send(outcome.response.body);
      }
      if (outcome.kind === 'conflict') {
        throw new AppError('idempotency_conflict', {
          message: 'This Idempotency-Key was first used with a different body; use a new key for a new request.',
        });
      }
      if (outcome.kind === 'in_progress') {
        throw new AppError('idempotency_in_progress', {
          message: 'The first request with this Idempotency-Key is still running; retry later with the same key.',
        });
      }
    }
    try {
      const { status, payload, headers } = await this.runExclusive(principal, tool, body, plan);
      if (scope) await toolIdempotencyRepository.complete(this.deps.db, scope, { status, body: payload, headers });
      return reply.code(status).headers(headers).type(JSON_TYPE).send(payload);
    } catch (err) {
      if (scope)
        await toolIdempotencyRepository
          .abandon(this.deps.db, scope)
          .catch((e: unknown) => request.log.warn({ err: e }, 'idempotency marker not removed'));
      throw err;
    }
  }

  private async runExclusive(principal: ToolPrincipal, tool: ToolName, body: unknown, plan: (body: unknown) => ToolPlan) {
    const { limiter } = this.deps;
    const { apiKeyId, limits } = principal;
    // the limiter answers at once when its counters are in this process: awaited only when it returns a promise
    const admitting = limiter.admit(apiKeyId, tool, limits);
    const admission = admitting instanceof Promise ? await admitting : admitting;
    let snapshot = limiter.snapshot(limits, tool, admission.quotaUsed, admission.minuteUsed);
    if (admission.kind !== 'admitted') {
      if (admission.kind === 'busy') {
        throw limitError(
          'concurrency_limited',
          'Another request for this API key and tool is running; wait for it, then retry.',
          snapshot,
          1,
        );
      }
      throw limitError(
        'rate_limited',
        `The limit of ${limits.requestsPerMinute} requests per minute is used up; retry after the minute ends.`,
        snapshot,
        limiter.retryAfterMinute(),
      );
    }
    const { token } = admission;
    // the turn ends with the quota charged (settle) or, on every other way out, released without a charge
    let turnOpen = true;
    try {
      const decision = plan(body);
      if (decision.kind === 'invalid') {
        throw new AppError('invalid_request', { message: decision.message, headers: limitHeaders(snapshot) });
      }
      if (decision.units > snapshot.quota.remaining) throw quotaRefusal(decision.units, snapshot, limiter.retryAfterDay());
      // work done at once (a UTM batch) is not awaited; work in the pool (a QR PNG) is
      const running = decision.run();
      const result = running instanceof Promise ? await running : running;
      if (!result.ok) throw new AppError('invalid_request', { message: result.message, headers: limitHeaders(snapshot) });
      const settling = limiter.settle(apiKeyId, tool, token, decision.units, limits.dailyQuota[tool]);
      const charged = settling instanceof Promise ? await settling : settling;
      turnOpen = false;
      snapshot = limiter.snapshot(limits, tool, charged.used, admission.minuteUsed);
      if (!charged.allowed) throw quotaRefusal(decision.units, snapshot, limiter.retryAfterDay());
      const headers = limitHeaders(snapshot);
      const payload = answerText(result, snapshot);
      return { status: 200, payload, headers };
    } finally {
      if (turnOpen) await limiter.release(apiKeyId, tool, token);
    }
  }
}
