/**
 * A platform API made from its published description alone (contracts/<name>): every request is routed
 * and checked by the description (the same checker the simulators use) and answered with openapi-backend's
 * mock answer for its operation, built from the description's examples and schemas. `answers` replaces
 * the generated answer of an operation where a coherent flow needs it (ids the next call carries, a
 * processing state that ends); `extraRoutes` serves what lies outside the description (an upload URL).
 * Nothing here knows our adapters' reading of the platform.
 */
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { type ContractViolation, loadContract } from '../../src/platform/contracts/contracts.js';
import { parseMultipart } from '../../src/sandbox/simulators/x/x-http.js';

interface MockCall {
  method: string;
  url: string;
  operationId: string | null;
  violations: ContractViolation[];
}

export type MockAnswerFn = (request: FastifyRequest) => { status: number; body: unknown };

export interface ContractMockServer {
  url: string;
  calls: MockCall[];
  close(): Promise<void>;
}

export async function startContractMockServer(
  contractName: string,
  options: { answers?: Record<string, MockAnswerFn>; extraRoutes?: (app: FastifyInstance) => void } = {},
): Promise<ContractMockServer> {
  const contract = await loadContract(contractName);
  const calls: MockCall[] = [];
  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 64 * 1024 * 1024 });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (req, body, done) => {
    const parts = parseMultipart(body as Buffer, String(req.headers['content-type'] ?? ''));
    const files = Object.fromEntries(Object.entries(parts.files).map(([k, v]) => [k, `<${v.length} bytes>`]));
    done(null, { ...parts.fields, ...files });
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  options.extraRoutes?.(app);
  app.all('/*', async (request, reply) => {
    const body = Buffer.isBuffer(request.body) ? (request.body.length > 0 ? `<${request.body.length} bytes>` : undefined) : request.body;
    const verdict = contract.checkRequest({ method: request.method, path: request.url, headers: request.headers, body: body ?? undefined });
    calls.push({ method: request.method, url: request.url, operationId: verdict.operationId, violations: verdict.violations });
    if (verdict.violations.length > 0 || !verdict.operationId) return reply.code(400).send({ violations: verdict.violations });
    const answer = options.answers?.[verdict.operationId]?.(request) ?? contract.mockResponse(verdict.operationId);
    return reply.code(answer.status).send(answer.body);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, close: () => app.close() };
}
