/** Loopback webhook receivers for tests: one server, one behaviour per path, every request recorded. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitFor } from '../support/wait.js';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** Answers one request; return nothing to answer 200 "ok". Awaiting inside holds the request open. */
export type Behaviour = (req: Received, res: ServerResponse) => void | Promise<void>;

export class Receivers {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly inFlightNow = new Map<string, number>();
  readonly maxInFlight = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private server!: Server;
  base = '';

  async start() {
    this.server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const path = (req.url ?? '/').split('?')[0]!;
        const got: Received = {
          path,
          headers: req.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.received.push(got);
        const now = (this.inFlightNow.get(path) ?? 0) + 1;
        this.inFlightNow.set(path, now);
        this.maxInFlight.set(path, Math.max(now, this.maxInFlight.get(path) ?? 0));
        try {
          await this.behaviours.get(path)?.(got, res);
        } finally {
          this.inFlightNow.set(path, (this.inFlightNow.get(path) ?? 1) - 1);
        }
        if (!res.headersSent && !res.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A URL answering with the behaviour (200 when none). */
  url(path: string, behaviour?: Behaviour) {
    if (behaviour) this.behaviours.set(path, behaviour);
    return `${this.base}${path}`;
  }

  set(path: string, behaviour: Behaviour) {
    this.behaviours.set(path, behaviour);
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  async waitFor(path: string, n: number, timeoutMs = 20_000) {
    await until(async () => this.at(path).length >= n, timeoutMs, `${n} requests on ${path} (got ${this.at(path).length})`);
    return this.at(path);
  }

  async stop() {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export const until = <T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000, what = 'condition') =>
  waitFor(what, fn, timeoutMs, 100);

/** A status with optional headers. */
export const answer =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(`answer ${status}`);
  };
