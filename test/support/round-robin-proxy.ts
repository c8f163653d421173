/**
 * A small load balancer for multi-process tests: forwards each request to the next of several API
 * processes in turn (round robin, Node's http only) and counts the requests each one answered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  base: string;
  /** requests answered by each upstream, by its base URL */
  served: Map<string, number>;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  const served = new Map(upstreams.map((u) => [u, 0]));
  // idle sockets: the proxy drops its upstream ones well before the API processes would (their idle
  // timeout is longer), and keeps a client's longer than the client keeps it, so neither side reuses a
  // socket the other is closing (an ECONNRESET under load)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const upstream = upstreams[next++ % upstreams.length]!;
    const target = new URL(req.url ?? '/', upstream);
    const forward = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host }, agent }, (answer) => {
      served.set(upstream, (served.get(upstream) ?? 0) + 1);
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('upstream unavailable');
    });
    req.pipe(forward);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
