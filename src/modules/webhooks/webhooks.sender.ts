/**
 * One signed POST to a user's URL: the address is checked (and pinned) by the guarded client's
 * policy at every attempt, redirects are never followed, the body read is capped at 4 KiB.
 *
 * Connections are kept alive per (origin, checked address): every attempt still checks the URL (its
 * name's resolution reused for 30 s, guarded-client.ts), and only reuses a connection already open to the
 * very address that check answered. When DNS moves the name elsewhere the first attempt after the
 * resolution is renewed checks the new address and connects there; an idle connection to the old address
 * is closed after KEEP_ALIVE_MS.
 */
import type { LookupOptions } from 'node:dns';
import { Agent, request } from 'undici';
import { CallSignal } from '../../platform/http-client/call-signal.js';
import { GuardedFetchError, type GuardedHttpClient } from '../../platform/http-client/guarded-client.js';

const EXCERPT_BYTES = 4096;
/** an idle kept-alive connection (and its pool, once empty) is closed after this long */
const KEEP_ALIVE_MS = 4_000;

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
  /** null when delivered (2xx) */
  errorClass: string | null;
  headers: Record<string, string>;
}

function pinnedLookup(address: string, family: 4 | 6) {
  return (_hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let seen = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    seen += chunk.length;
    if (seen >= EXCERPT_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
}

/** Connection pools by origin and pinned address, so consecutive deliveries to one receiver reuse a connection. */
export class DeliveryAgents {
  private readonly agents = new Map<string, { agent: Agent; usedAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  constructor(private readonly timeoutMs: number) {
    this.sweeper = setInterval(() => this.sweep(), KEEP_ALIVE_MS);
    this.sweeper.unref();
  }

  for(origin: string, address: string, family: 4 | 6): Agent {
    const key = `${origin}|${address}`;
    let entry = this.agents.get(key);
    if (!entry) {
      const agent = new Agent({
        connect: { lookup: pinnedLookup(address, family) as never, timeout: this.timeoutMs },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        // never pipelined: one request per connection at a time
        pipelining: 1,
      });
      entry = { agent, usedAt: Date.now() };
      this.agents.set(key, entry);
    }
    entry.usedAt = Date.now();
    return entry.agent;
  }

  private sweep() {
    const cutoff = Date.now() - 2 * KEEP_ALIVE_MS;
    for (const [key, entry] of this.agents)
      if (entry.usedAt < cutoff) {
        this.agents.delete(key);
        entry.agent.close().catch(() => undefined);
      }
  }

  async close() {
    clearInterval(this.sweeper);
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((e) => e.agent.destroy().catch(() => undefined)));
  }
}

export async function postSigned(
  client: GuardedHttpClient,
  agents: DeliveryAgents,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<SendResult> {
  const started = performance.now();
  const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
  let checked: Awaited<ReturnType<GuardedHttpClient['check']>>;
  try {
    checked = await client.check(url);
  } catch (error) {
    const code = error instanceof GuardedFetchError ? error.code : 'url_invalid';
    return done({ statusCode: null, excerpt: null, errorClass: code === 'dns_failed' ? 'dns_failed' : 'url_refused', headers: {} });
  }
  const agent = agents.for(checked.url.origin, checked.address, checked.family);
  // the attempt's deadline: the request, the answer and the excerpt together
  const deadline = new CallSignal();
  const timer = setTimeout(() => deadline.fire(), timeoutMs);
  try {
    const response = await request(checked.url, {
      method: 'POST',
      dispatcher: agent,
      signal: deadline,
      headers: { 'content-type': 'application/json', 'user-agent': 'service-api-webhooks/1', ...headers },
      body,
    });
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(response.headers))
      if (v !== undefined) responseHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    let excerpt: string | null = null;
    try {
      excerpt = await readExcerpt(response.body);
    } catch {
      excerpt = null;
    }
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    return done({
      statusCode: status,
      excerpt,
      errorClass: ok ? null : status >= 300 && status < 400 ? 'redirect' : 'http_status',
      headers: responseHeaders,
    });
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const timeout =
      deadline.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
    return done({ statusCode: null, excerpt: null, errorClass: timeout ? 'timeout' : 'connect_failed', headers: {} });
  } finally {
    clearTimeout(timer);
  }
}
