/**
 * A fetch that retries what is safe to retry, so callers do not have to:
 * - every request: 429 (not processed), and 503 carrying Retry-After (shutting down / not ready);
 * - reads (GET, HEAD) and idempotent writes (PUT, DELETE, and POSTs that carry an idempotency key the
 *   server honours: the publish job, agent publish and batch commit bodies, comment replies and the tool
 *   API's Idempotency-Key header): also 500, 502, 503, 504 and network errors.
 * Waits follow Retry-After (seconds or HTTP date), then RateLimit-Reset, else exponential backoff with
 * full jitter; never longer than maxDelayMs (a longer wait is returned to the caller instead).
 */
import { ServiceApiUnreachableError } from './errors.js';

export interface RetryOptions {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** adds `idempotencyKey` to write bodies of the routes that take one (default true) */
  autoIdempotency: boolean;
}

const BODY_KEY_WRITES = [/\/v1\/agent\/publish$/, /\/v1\/publish\/jobs$/, /\/v1\/publish\/batches$/];
const HEADER_KEY_WRITES = [/\/v1\/social-comments\/[^/]+\/reply$/, /\/api\/v1\/tools\//];

function randomKey(): string {
  return `sdk_${crypto.randomUUID()}`;
}

function waitMs(res: Response, attempt: number, opts: RetryOptions): number {
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  const reset = Number(res.headers.get('ratelimit-reset'));
  if (res.status === 429 && Number.isFinite(reset) && reset > 0) return reset * 1000;
  return backoff(attempt, opts);
}

function backoff(attempt: number, opts: RetryOptions): number {
  return Math.random() * Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** attempt);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Makes a write request safe to repeat by giving it the idempotency key its route honours. */
async function withIdempotency(request: Request): Promise<{ request: Request; idempotent: boolean }> {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD' || method === 'PUT' || method === 'DELETE') return { request, idempotent: true };
  const path = new URL(request.url).pathname;
  if (HEADER_KEY_WRITES.some((r) => r.test(path))) {
    if (!request.headers.has('idempotency-key')) {
      const headers = new Headers(request.headers);
      headers.set('idempotency-key', randomKey());
      return { request: new Request(request, { headers }), idempotent: true };
    }
    return { request, idempotent: true };
  }
  if (method === 'POST' && BODY_KEY_WRITES.some((r) => r.test(path))) {
    const text = await request.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { request, idempotent: false };
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { request, idempotent: false };
    const b = body as Record<string, unknown>;
    // a dry run (the default) persists nothing, so repeating it is harmless
    if (b.dryRun !== false) return { request, idempotent: true };
    if (typeof b.idempotencyKey === 'string') return { request, idempotent: true };
    return { request: new Request(request, { body: JSON.stringify({ ...b, idempotencyKey: randomKey() }) }), idempotent: true };
  }
  return { request, idempotent: false };
}

export function retryingFetch(base: typeof fetch, opts: RetryOptions): (request: Request) => Promise<Response> {
  return async (original: Request) => {
    const { request, idempotent } = opts.autoIdempotency
      ? await withIdempotency(original)
      : { request: original, idempotent: ['GET', 'HEAD', 'PUT', 'DELETE'].includes(original.method.toUpperCase()) };
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= opts.maxRetries;
      let res: Response;
      try {
        res = await base(request.clone());
      } catch (err) {
        if (last || !idempotent) throw new ServiceApiUnreachableError(request.method, request.url, err);
        await sleep(backoff(attempt, opts));
        continue;
      }
      const retryable =
        res.status === 429 ||
        (res.status === 503 && res.headers.has('retry-after')) ||
        (idempotent && [500, 502, 503, 504].includes(res.status));
      if (!retryable || last) return res;
      const delay = waitMs(res, attempt, opts);
      if (delay > opts.maxDelayMs) return res;
      await res.body?.cancel().catch(() => undefined);
      await sleep(delay);
    }
  };
}
