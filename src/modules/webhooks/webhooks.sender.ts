/**
 * One signed POST to a user's URL: the address is checked (and pinned) by the guarded client's
 * policy at every attempt, redirects are never followed, the body read is capped at 4 KiB.
 */
import type { LookupOptions } from 'node:dns';
import { Agent, request } from 'undici';
import { GuardedFetchError, type GuardedHttpClient } from '../../platform/http-client/guarded-client.js';

export const EXCERPT_BYTES = 4096;

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

export async function postSigned(
  client: GuardedHttpClient,
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
  const agent = new Agent({
    connect: { lookup: pinnedLookup(checked.address, checked.family) as never, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const deadline = AbortSignal.timeout(timeoutMs);
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
    await agent.destroy().catch(() => undefined);
  }
}
