/**
 * Shared machinery for the platform simulators: a failure-injection queue and a record of what each
 * simulator received. Each platform-family simulator is a Fastify plugin built on this kit, so it can run
 * standalone on a loopback port (tests) or be mounted under /sandbox/<family> in sandbox mode.
 *
 * Failure switches (consumed in order, each optionally limited to routes whose name matches):
 * - expired_token: answer the platform's own "token expired/invalid" error
 * - rate_limit:    answer the platform's 429 (or its documented rate-limit error) with retry-after
 * - server_error:  answer 5xx
 * - timeout:       hold the request without answering for `delayMs` (default 30 s)
 * - lost_response: perform the operation (the post exists) and then destroy the socket without answering
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ContractViolation } from '../platform/contracts/contracts.js';
import { redactUrl } from '../platform/logging/redact.js';

type FailureKind = 'expired_token' | 'rate_limit' | 'server_error' | 'timeout' | 'lost_response';

export interface FailureRule {
  kind: FailureKind;
  /** operation name (e.g. "publish", "token", "media_upload"); all operations when absent */
  operation?: string;
  /** how many requests this rule applies to (default 1) */
  times?: number;
  retryAfterSeconds?: number;
  delayMs?: number;
}

export class FailureQueue {
  private rules: Array<FailureRule & { remaining: number }> = [];

  inject(rule: FailureRule): void {
    this.rules.push({ ...rule, remaining: rule.times ?? 1 });
  }

  clear(): void {
    this.rules = [];
  }

  /** Takes the next failure that applies to this operation, or null. */
  take(operation: string): FailureRule | null {
    const idx = this.rules.findIndex((r) => r.remaining > 0 && (!r.operation || r.operation === operation));
    if (idx < 0) return null;
    const rule = this.rules[idx]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules.splice(idx, 1);
    return rule;
  }
}

/** What a simulator received, so tests can count posts exactly (nothing published twice). */
export interface ReceivedPost {
  platform: string;
  accountId: string;
  postId: string;
  text: string;
  mediaCount: number;
  /** the alt text the platform received for each media item that had one */
  altTexts?: string[];
  at: number;
}

/** One request a simulator checked against its platform's description (src/sandbox/contract-guard.ts). */
export interface ContractCheckRecord {
  contract: string;
  method: string;
  url: string;
  /** "createPosts (POST /2/tweets)", or "METHOD path" when no operation matched */
  operation: string;
  operationId: string | null;
  /** what the description rejects in the request (the simulator answered the platform's error) */
  violations: ContractViolation[];
  /** the answer and what the description rejects in it (when `checkAnswers` is on) */
  answer?: { status: number; violations: ContractViolation[] };
  at: number;
}

export class SimulatorLedger {
  readonly posts: ReceivedPost[] = [];
  readonly comments: Array<{ postId: string; commentId: string; text: string; at: number }> = [];
  readonly requests: Array<{ operation: string; method: string; url: string; at: number }> = [];
  /** every request checked against the platform's description, with its verdict */
  readonly contractChecks: ContractCheckRecord[] = [];
  /** also check every answer against the description's response schemas (the contract tests turn it on) */
  checkAnswers = false;

  recordContractCheck(check: ContractCheckRecord): void {
    this.contractChecks.push(check);
    if (this.contractChecks.length > 5_000) this.contractChecks.splice(0, 1_000);
  }

  /** Keeps the request with its secret query parameters (tokens, codes, fb_exchange_token ...) redacted. */
  record(operation: string, method: string, url: string): void {
    this.requests.push({ operation, method, url: redactUrl(url), at: Date.now() });
    if (this.requests.length > 50_000) this.requests.splice(0, 10_000);
  }

  count(operation: string): number {
    return this.requests.filter((r) => r.operation === operation).length;
  }
}

/** Body parsers a simulator needs (form bodies and raw uploads), encapsulated in its own plugin scope. */
function addRawBodyParsers(app: FastifyInstance, uploadLimitBytes = 512 * 1024 * 1024): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: uploadLimitBytes }, (_req, body, done) => done(null, body));
}

/** What a simulator plugin is given: the world it serves, its ledger and its failure switches. */
export interface SimulatorPluginOptions<S> {
  state: S;
  ledger: SimulatorLedger;
  failures: FailureQueue;
}

export interface RunningSimulator<S, B> {
  url: string;
  close(): Promise<void>;
  ledger: SimulatorLedger;
  failures: FailureQueue;
  state: S;
  baseUrls: B;
}

/** Runs a simulator plugin standalone on a loopback port (tests); `bodyLimit` raises Fastify's default. */
export async function startSimulatorServer<S, B>(
  plugin: FastifyPluginAsync<SimulatorPluginOptions<S>>,
  state: S,
  baseUrls: (url: string) => B,
  server: { bodyLimit?: number } = {},
): Promise<RunningSimulator<S, B>> {
  const app = Fastify({ logger: false, forceCloseConnections: true, ...server });
  const ledger = new SimulatorLedger();
  const failures = new FailureQueue();
  await app.register(plugin, { state, ledger, failures });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return { url, close: () => app.close(), ledger, failures, state, baseUrls: baseUrls(url) };
}

/** What a simulator handler answers. */
export interface SimResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Thrown by simulator handlers to answer an error result. */
export class SimAnswer extends Error {
  constructor(readonly result: SimResult) {
    super('simulated answer');
  }
}

/** Waits `ms`, or less when the client closes the connection first. */
function holdUnlessClosed(req: FastifyRequest, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    function done() {
      clearTimeout(timer);
      req.raw.socket?.off('close', done);
      resolve();
    }
    req.raw.socket?.once('close', done);
  });
}

/**
 * Runs a simulator handler under the failure switches. expired_token / rate_limit / server_error answer the
 * platform's own error (rendered by `answerFor`) instead of the handler; timeout holds the request first;
 * lost_response runs the handler (the effect happens) and then destroys the socket without answering.
 * Returns the result to send, or null when there is nothing to send (the reply is hijacked).
 */
export async function runWithFailures(
  req: FastifyRequest,
  reply: FastifyReply,
  failures: FailureQueue,
  operation: string,
  answerFor: (failure: FailureRule) => SimAnswer,
  handler: (req: FastifyRequest) => Promise<SimResult> | SimResult,
): Promise<SimResult | null> {
  let result: SimResult;
  const failure = failures.take(operation);
  try {
    if (failure?.kind === 'expired_token' || failure?.kind === 'rate_limit' || failure?.kind === 'server_error') throw answerFor(failure);
    if (failure?.kind === 'timeout') {
      await holdUnlessClosed(req, failure.delayMs ?? 30_000);
      // the client gone (its timeout was shorter than the hold): nothing to answer. Only the socket tells:
      // the request stream itself is destroyed as soon as its body has been read, client or no client.
      if (!req.raw.socket || req.raw.socket.destroyed) {
        reply.hijack();
        return null;
      }
    }
    result = await handler(req);
  } catch (err) {
    if (!(err instanceof SimAnswer)) throw err;
    result = err.result;
  }
  if (failure?.kind === 'lost_response') {
    reply.hijack();
    req.raw.socket?.destroy();
    return null;
  }
  return result;
}

/** What a simulator's routes share to run an operation under the failure switches. */
export interface FailureContext {
  ledger: SimulatorLedger;
  failures: FailureQueue;
  /** aborted when the simulator closes, so held (timeout) requests end at once */
  closing: AbortSignal;
}

/** A simulator plugin's FailureContext: its ledger and switches, and a signal aborted when the app closes. */
function failureContextOf(app: FastifyInstance, opts: SimulatorPluginOptions<unknown>): FailureContext {
  const closing = new AbortController();
  app.addHook('onClose', async () => closing.abort());
  return { ledger: opts.ledger, failures: opts.failures, closing: closing.signal };
}

/** A group of a simulator's routes, registered with the world it serves and its failure context. */
export type SimulatorRoutes<S> = (app: FastifyInstance, state: S, ctx: FailureContext) => void;

/**
 * The plugin of a simulator taking form and raw bodies: the parsers (encapsulated in the plugin, so the
 * host app keeps its own), then the platform's published description judging every request first, then
 * the route groups in order.
 */
export function rawBodySimulatorPlugin<S>(
  enforceContract: (app: FastifyInstance, ledger: SimulatorLedger) => void,
  routes: SimulatorRoutes<S>[],
): FastifyPluginAsync<SimulatorPluginOptions<S>> {
  return async (app, opts) => {
    const ctx = failureContextOf(app, opts);
    addRawBodyParsers(app);
    enforceContract(app, opts.ledger);
    for (const register of routes) register(app, opts.state, ctx);
  };
}

/**
 * The plugin of a simulator whose routes take its plugin options: the simulator's own body parsers, then
 * the platform's published description judging every request first, then the route groups in order.
 */
export function simulatorPlugin<S>(
  addBodyParsers: (app: FastifyInstance) => void,
  enforceContract: (app: FastifyInstance, ledger: SimulatorLedger) => void,
  routes: Array<(app: FastifyInstance, ctx: SimulatorPluginOptions<S>) => void>,
): FastifyPluginAsync<SimulatorPluginOptions<S>> {
  return async (app, opts) => {
    addBodyParsers(app);
    enforceContract(app, opts.ledger);
    for (const register of routes) register(app, opts);
  };
}

/** The injected failures that answer instead of the operation, each with the platform's own error. */
export type AnsweringFailure = FailureRule & { kind: 'expired_token' | 'rate_limit' | 'server_error' };

/** Ends the exchange without an answer: the client sees the connection drop. */
export function dropConnection(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.hijack();
  request.raw.socket?.destroy();
  return reply;
}

/** Waits `ms`, or less when `signal` aborts first (the simulator closing). */
function holdUntil(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Records the request and applies the next injected failure for this operation (the simulators whose
 * routes send their own answers): expired_token / rate_limit / server_error are answered by `answer`
 * with the platform's own error; timeout holds the request for `delayMs` (default 30 s) and drops the
 * connection. Returns 'answered' when the failure already answered, otherwise whether the answer must be
 * lost (dropConnection) after the operation is performed (lost_response).
 */
export async function beginOperation(
  ctx: FailureContext,
  operation: string,
  request: FastifyRequest,
  reply: FastifyReply,
  answer: (failure: AnsweringFailure, reply: FastifyReply) => unknown,
): Promise<'answered' | { loseAnswer: boolean }> {
  ctx.ledger.record(operation, request.method, request.url);
  const rule = ctx.failures.take(operation);
  if (!rule) return { loseAnswer: false };
  if (rule.kind === 'lost_response') return { loseAnswer: true };
  if (rule.kind === 'timeout') {
    await holdUntil(rule.delayMs ?? 30_000, ctx.closing);
    dropConnection(request, reply);
    return 'answered';
  }
  answer(rule as AnsweringFailure, reply);
  return 'answered';
}
