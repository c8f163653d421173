/**
 * A worker process serves no API, so its job, lateness, provider and webhook series would be invisible.
 * With SERVICE_WORKER_METRICS_PORT set, `service-api worker` serves GET /v1/internal/metrics on that
 * port, with the same credentials and answers as the API route (internal or principal token, never from
 * a browser).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

const METRICS_PATH = '/v1/internal/metrics';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

function sameSecret(given: string, expected: string | undefined): boolean {
  if (!expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function fail(res: ServerResponse, status: number, error: string, message: string, requestId: string) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId });
  res.end(JSON.stringify({ error, message, requestId }));
}

export async function serveMetrics(opts: {
  metrics: Metrics;
  host: string;
  port: number;
  internalToken: string | undefined;
  principalToken: string | undefined;
}): Promise<MetricsServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const requestId = `req_${randomBytes(10).toString('hex')}`;
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH) return fail(res, 404, 'not_found', 'This port serves only GET /v1/internal/metrics.', requestId);
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, 'method_not_allowed', 'Use GET.', requestId);
    const internal = req.headers['x-service-internal-token'];
    const principal = req.headers['x-service-principal-token'];
    if (internal === undefined && principal === undefined)
      return fail(res, 401, 'internal_token_required', 'The x-service-internal-token header is required.', requestId);
    const ok =
      req.headers.origin === undefined &&
      ((typeof internal === 'string' && sameSecret(internal, opts.internalToken)) ||
        (typeof principal === 'string' && sameSecret(principal, opts.principalToken)));
    if (!ok) return fail(res, 403, 'permission_denied', 'The service token is not valid.', requestId);
    const body = await opts.metrics.scrape();
    res.writeHead(200, { 'content-type': opts.metrics.contentType, 'cache-control': 'no-store', 'x-request-id': requestId });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: 'internal_server_error', message: 'Metrics could not be collected.' }));
    });
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
