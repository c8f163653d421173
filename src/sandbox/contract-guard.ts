/**
 * Makes a simulator enforce its platform's published API description: every request it receives is
 * checked against the vendored description (src/platform/contracts/) before any handler runs, and a
 * request the description rejects is answered with what the real API answers for an invalid request
 * (the simulator's `reject`: its error body, status and codes). Every test that runs an adapter against a
 * simulator therefore also enforces the contract. Each verdict is recorded in the simulator's ledger
 * (`ledger.contractChecks`); with `ledger.checkAnswers` on (the contract tests), every answer is checked
 * against the operation's response schemas too.
 *
 * A simulator plugs in with one call inside its plugin:
 *
 *   enforceContract(app, {
 *     contract: 'x', ledger: opts.ledger,
 *     undescribed: ['GET /2/oauth2/authorize'],          // routes the description does not cover
 *     bodyOf: (req) => ...,                               // form or multipart fields, when not req.body
 *     reject: (verdict) => ({ status: 400, body: {...} }), // the platform's own invalid-request answer
 *   });
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { loadContract, type RequestVerdict } from '../platform/contracts/contracts.js';
import type { ContractCheckRecord, SimResult, SimulatorLedger } from './simulator-kit.js';

export interface ContractGuardOptions {
  /** the folder under contracts/ ("x", "pinterest", ...) */
  contract: string;
  ledger: SimulatorLedger;
  /**
   * routes of the simulator the description does not cover, as "METHOD /route" relative to the mount prefix
   * (the route pattern as registered, e.g. "GET /web/oauth/", "POST /media-upload/"; "* /route" for any method)
   */
  undescribed?: readonly string[];
  /**
   * the routes this guard judges, when one simulator serves several hosts with one description each (the
   * Meta simulator: graph.facebook.com, graph.instagram.com, graph.threads.net); default: every route
   */
  applies?: (route: string) => boolean;
  /** the path as the platform's server sees it, from the path after the mount prefix (default: as is) */
  platformPath?: (path: string) => string;
  /** the body as parsed fields (form, multipart), when `request.body` is not that already */
  bodyOf?: (request: FastifyRequest) => unknown;
  /** the platform's answer to a request its description rejects */
  reject: (verdict: RequestVerdict, request: FastifyRequest) => SimResult;
}

function bodyFor(request: FastifyRequest, bodyOf?: (request: FastifyRequest) => unknown): unknown {
  if (bodyOf) return bodyOf(request);
  const body = request.body;
  if (body === undefined || body === null) return undefined;
  if (Buffer.isBuffer(body)) return body.length === 0 ? undefined : `<${body.length} bytes>`;
  return body;
}

export function enforceContract(app: FastifyInstance, opts: ContractGuardOptions): void {
  const prefix = app.prefix.replace(/\/+$/, '');
  const skip = new Set(opts.undescribed ?? []);
  const checks = new WeakMap<FastifyRequest, ContractCheckRecord>();

  app.addHook('preHandler', async (request, reply) => {
    const route = (request.routeOptions.url ?? '').slice(prefix.length);
    if (skip.has(`${request.method} ${route}`) || skip.has(`* ${route}`)) return;
    if (opts.applies && !opts.applies(route)) return;
    const contract = await loadContract(opts.contract);
    const relative = request.url.slice(prefix.length) || '/';
    const verdict = contract.checkRequest({
      method: request.method,
      path: opts.platformPath ? opts.platformPath(relative) : relative,
      headers: request.headers,
      body: bodyFor(request, opts.bodyOf),
    });
    const record: ContractCheckRecord = {
      contract: opts.contract,
      method: request.method,
      url: request.url,
      operation: verdict.operation,
      operationId: verdict.operationId,
      violations: verdict.violations,
      at: Date.now(),
    };
    opts.ledger.recordContractCheck(record);
    checks.set(request, record);
    if (verdict.violations.length === 0) return;
    const answer = opts.reject(verdict, request);
    reply.code(answer.status);
    if (answer.headers) reply.headers(answer.headers);
    return reply.send(answer.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const record = checks.get(request);
    // a handler that sends and then resolves runs onSend a second time, without a payload: the first one is the answer
    if (!record?.operationId || !opts.ledger.checkAnswers || record.answer) return payload;
    const contract = await loadContract(opts.contract);
    let body: unknown = null;
    if (typeof payload === 'string' && payload.length > 0) {
      try {
        body = JSON.parse(payload);
      } catch {
        body = payload;
      }
    }
    record.answer = { status: reply.statusCode, violations: contract.checkResponse(record.operationId, reply.statusCode, body) };
    return payload;
  });
}
