/**
 * The one HTTP helper provider clients use to call a platform. It does only what every adapter needs
 * and must do the same way:
 * - a per-request timeout;
 * - the distinction between "the request never left" (transient: safe to retry) and "the request may
 *   have reached the platform" (unknown_outcome for non-idempotent calls: never blindly retry);
 * - parsing JSON answers and handing non-2xx answers to the adapter's own error mapper.
 * Platform-specific error mapping stays in each adapter (<p>.client.ts).
 */
import { Readable } from 'node:stream';
import { request, errors as undiciErrors } from 'undici';
import { CallSignal } from '../../platform/http-client/call-signal.js';
import { type Platform, ProviderError } from '../provider.js';
import { parseExactJson } from './exact-json.js';

export interface ProviderHttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  url: string;
  headers?: Record<string, string>;
  /** JSON body (serialized here), form body (URLSearchParams), raw bytes, or a stream of bytes */
  json?: unknown;
  form?: URLSearchParams;
  body?: Uint8Array | AsyncIterable<Uint8Array>;
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * true when repeating the call cannot create a second post (GET, token calls, status polls,
   * container creation). A network failure after sending is then `transient`; otherwise it is
   * `unknown_outcome`.
   */
  idempotent: boolean;
  /** read JSON integers beyond 2^53 as strings of their exact digits (exact-json.ts; TikTok's int64 post ids) */
  exactIntegers?: boolean;
}

export interface ProviderHttpResponse {
  status: number;
  headers: Record<string, string>;
  /** parsed JSON when the answer is JSON, the text otherwise, null when empty */
  body: unknown;
}

/** Errors undici raises before any byte of the request was written. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function headerMap(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export async function providerRequest(platform: Platform, req: ProviderHttpRequest): Promise<ProviderHttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let body: string | Uint8Array | Readable | undefined;
  if (req.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(req.json);
  } else if (req.form) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    body = req.form.toString();
  } else if (req.body) {
    body = req.body instanceof Uint8Array ? req.body : Readable.from(req.body);
  }
  // one signal for the whole-call deadline and the caller's (call-signal.ts: an AbortController was still
  // about 20 µs a published target in a worker profile)
  const abort = new CallSignal();
  const timer = setTimeout(() => abort.fire(new DOMException('The operation timed out.', 'TimeoutError')), req.timeoutMs);
  const fromCaller = () => abort.fire(req.signal?.reason);
  if (req.signal?.aborted) fromCaller();
  else req.signal?.addEventListener('abort', fromCaller, { once: true });
  try {
    const res = await request(req.url, {
      method: req.method,
      headers,
      body,
      signal: abort,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    const text = await res.body.text();
    const resHeaders = headerMap(res.headers);
    let parsed: unknown = null;
    if (text.length > 0) {
      const type = resHeaders['content-type'] ?? '';
      if (type.includes('json') || /^[[{]/.test(text.trimStart())) {
        try {
          parsed = req.exactIntegers ? parseExactJson(text) : JSON.parse(text);
        } catch {
          parsed = text;
        }
      } else {
        parsed = text;
      }
    }
    return { status: res.statusCode, headers: resHeaders, body: parsed };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    const notSent = NOT_SENT_CODES.has(code) || err instanceof undiciErrors.ConnectTimeoutError;
    const category = notSent || req.idempotent ? 'transient' : 'unknown_outcome';
    throw new ProviderError({
      platform,
      category,
      message: notSent
        ? `could not reach ${platform}: ${code || (err as Error).message}`
        : `no answer from ${platform} (${code || (err as Error).name}); the request may have been received`,
      providerCode: code || null,
    });
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', fromCaller);
  }
}

/** Parses a Retry-After header (seconds or HTTP date) into seconds, or null. */
export function retryAfterSeconds(headers: Record<string, string>, now = Date.now()): number | null {
  const value = headers['retry-after'];
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
