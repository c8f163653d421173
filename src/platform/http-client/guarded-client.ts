/**
 * The one outbound HTTP client for fetching URLs supplied by users (remote media import, and any
 * other user-controlled address). It exists to stop server-side request forgery:
 * - only http and https;
 * - the host is resolved first and every resolved address is checked (address-policy.ts); the
 *   connection is then pinned to the checked address through a custom `lookup`, so a second DNS
 *   answer (rebinding) can never change where we connect, while the Host header and TLS SNI keep the
 *   original name;
 * - redirects are followed by hand (at most 5), each hop re-checked the same way;
 * - one transport deadline (60 s) covers connect, headers and body; the body stops being read past
 *   the byte cap.
 *
 * Tests reach loopback servers only through `allowAddresses`, a constructor option that production
 * wiring never sets, and that is refused outright when `environment` is "production".
 *
 * undici reference: https://undici.nodejs.org/#/docs/api/Agent.md and
 * https://undici.nodejs.org/#/docs/api/Dispatcher.md (request, connect options passed to net/tls.connect).
 */

import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request } from 'undici';
import { type AddressRefusal, type AllowList, canonicalAddress, parseAllowList, refuseAddress } from './address-policy.js';
import { refuseUrlWithoutDns, type SavedUrlProblem } from './url-policy.js';

const GUARDED_DEFAULTS = {
  timeoutMs: 60_000,
  maxRedirects: 5,
  maxBytes: 33_554_432,
} as const;

export type GuardedFetchErrorCode =
  | 'url_invalid'
  | 'scheme_not_allowed'
  | 'address_refused'
  | 'dns_failed'
  | 'too_many_redirects'
  | 'redirect_invalid'
  | 'response_too_large'
  | 'timeout'
  | 'connect_failed';

export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError';
  constructor(
    readonly code: GuardedFetchErrorCode,
    message: string,
    readonly detail: {
      url?: string;
      address?: string;
      refusal?: AddressRefusal;
    } = {},
  ) {
    super(message);
  }
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export interface GuardedClientOptions {
  timeoutMs?: number;
  maxRedirects?: number;
  maxBytes?: number;
  /** CIDRs or addresses that bypass the address policy. Tests only; refused in production. */
  allowAddresses?: readonly string[];
  /** "production" forbids a non-empty allow-list so it cannot be enabled there by accident. */
  environment?: string;
  /** DNS resolution; defaults to the system resolver (all addresses). Tests map names to loopback. */
  resolve?: Resolver;
  /** the clock of the resolutions' lifetime (tests) */
  now?: () => number;
  userAgent?: string;
}

export interface CheckedUrl {
  url: URL;
  /** the address the connection will be pinned to */
  address: string;
  family: 4 | 6;
}

export interface GuardedResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  address: string;
  redirects: number;
  /** the body, cut with `response_too_large` past maxBytes; read it or call `discard()` */
  body: AsyncIterable<Buffer>;
  discard(): Promise<void>;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** how long a name's resolution is reused (resolveName) */
const RESOLUTION_TTL_MS = 30_000;
/** names whose resolution is kept (the oldest is dropped past it) */
const RESOLUTIONS_MAX = 1_000;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function headerMap(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A connector lookup that answers every name with the one checked address. */
function pinnedLookup(address: string, family: 4 | 6) {
  return (_hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

export class GuardedHttpClient {
  private readonly allowList: AllowList;
  private readonly resolve: Resolver;
  private readonly now: () => number;
  private readonly resolutions = new Map<string, { addresses: Promise<LookupAddress[]>; expiresAt: number }>();
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  readonly maxBytes: number;
  private readonly userAgent: string;

  constructor(options: GuardedClientOptions = {}) {
    const allow = options.allowAddresses ?? [];
    if (allow.length > 0 && options.environment === 'production') {
      throw new Error('the outbound address allow-list is for tests and cannot be set in production');
    }
    this.allowList = parseAllowList(allow);
    this.resolve = options.resolve ?? systemResolver;
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? GUARDED_DEFAULTS.timeoutMs;
    this.maxRedirects = options.maxRedirects ?? GUARDED_DEFAULTS.maxRedirects;
    this.maxBytes = options.maxBytes ?? GUARDED_DEFAULTS.maxBytes;
    this.userAgent = options.userAgent ?? 'service-api-media-fetch/1';
  }

  /**
   * The checks that need no DNS (url-policy.ts), with this client's allow-list: what a URL that is
   * saved for later fetching (a webhook endpoint, a feed) must pass. null when it passes.
   */
  refuseAtSave(raw: string): SavedUrlProblem | null {
    return refuseUrlWithoutDns(raw, this.allowList);
  }

  /** Parses, resolves and checks a URL without sending anything (dry runs use this). */
  async check(raw: string | URL): Promise<CheckedUrl> {
    let url: URL;
    try {
      url = typeof raw === 'string' ? new URL(raw) : raw;
    } catch {
      throw new GuardedFetchError('url_invalid', 'the URL cannot be parsed', {
        url: String(raw),
      });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new GuardedFetchError('scheme_not_allowed', `scheme ${url.protocol} is not allowed; use http or https`, { url: url.href });
    }
    if (url.username || url.password) {
      throw new GuardedFetchError('url_invalid', 'URLs with credentials are not allowed', { url: url.origin });
    }
    // The WHATWG parser has already turned decimal, hex and short IPv4 forms into dotted quads.
    const literal = canonicalAddress(url.hostname);
    const candidates: LookupAddress[] = literal
      ? [
          {
            address: url.hostname.replace(/^\[|\]$/g, ''),
            family: url.hostname.startsWith('[') ? 6 : 4,
          },
        ]
      : await this.resolveName(url);
    for (const candidate of candidates) {
      const refusal = refuseAddress(candidate.address, this.allowList);
      if (refusal) {
        throw new GuardedFetchError('address_refused', `${url.hostname} resolves to a ${refusal.replace(/_/g, ' ')} address`, {
          url: url.href,
          address: candidate.address,
          refusal,
        });
      }
    }
    const first = candidates[0] as LookupAddress;
    return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
  }

  /**
   * The name's addresses, from the resolutions of the last RESOLUTION_TTL_MS (one lookup at a time per name:
   * checks that arrive while one runs share it). The system resolver answers through libuv's thread pool,
   * 20-70 µs of CPU a lookup of a name in /etc/hosts on the development host and a network round trip for
   * others, and a webhook worker checks its URL on every attempt: thousands of lookups a second of the same
   * few names. The addresses are checked on every use all the same, and the connection is still pinned to
   * the checked one; a name that moves is followed within the TTL. Failures are not kept.
   */
  private async resolveName(url: URL): Promise<LookupAddress[]> {
    try {
      return await this.resolveCached(url.hostname);
    } catch {
      throw new GuardedFetchError('dns_failed', `${url.hostname} cannot be resolved`, { url: url.href });
    }
  }

  private resolveCached(name: string): Promise<LookupAddress[]> {
    const known = this.resolutions.get(name);
    // expiresAt 0: a lookup in flight, shared
    if (known && (known.expiresAt === 0 || known.expiresAt > this.now())) return known.addresses;
    const entry = {
      addresses: this.resolve(name).then((found) => {
        if (found.length === 0) throw new Error('no address');
        entry.expiresAt = this.now() + RESOLUTION_TTL_MS;
        return found;
      }),
      expiresAt: 0,
    };
    entry.addresses.catch(() => {
      if (this.resolutions.get(name) === entry) this.resolutions.delete(name);
    });
    if (!known && this.resolutions.size >= RESOLUTIONS_MAX) this.resolutions.delete(this.resolutions.keys().next().value as string);
    this.resolutions.set(name, entry);
    return entry.addresses;
  }

  /** GET with redirects, each hop checked and pinned. */
  async get(
    raw: string,
    options: {
      maxBytes?: number;
      signal?: AbortSignal;
      headers?: Record<string, string>;
    } = {},
  ): Promise<GuardedResponse> {
    const maxBytes = Math.min(options.maxBytes ?? this.maxBytes, this.maxBytes);
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    let current = raw;
    for (let redirects = 0; ; redirects++) {
      const checked = await this.check(current);
      const agent = new Agent({
        connect: {
          lookup: pinnedLookup(checked.address, checked.family) as never,
          timeout: this.timeoutMs,
        },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      let response: Awaited<ReturnType<typeof request>>;
      try {
        response = await request(checked.url, {
          method: 'GET',
          dispatcher: agent,
          signal,
          headers: {
            'user-agent': this.userAgent,
            accept: '*/*',
            ...options.headers,
          },
        });
      } catch (error) {
        await agent.destroy().catch(() => undefined);
        throw this.transportError(error, signal, deadline, checked);
      }
      const headers = headerMap(response.headers as Record<string, string | string[] | undefined>);
      if (REDIRECT_STATUSES.has(response.statusCode) && headers.location) {
        await response.body.dump().catch(() => undefined);
        await agent.close().catch(() => undefined);
        if (redirects >= this.maxRedirects) {
          throw new GuardedFetchError('too_many_redirects', `more than ${this.maxRedirects} redirects`, { url: checked.url.href });
        }
        try {
          current = new URL(headers.location, checked.url).href;
        } catch {
          throw new GuardedFetchError('redirect_invalid', 'the redirect location cannot be parsed', { url: checked.url.href });
        }
        continue;
      }
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        await agent.destroy().catch(() => undefined);
        throw new GuardedFetchError('response_too_large', `the response declares ${declared} bytes, above the cap of ${maxBytes}`, {
          url: checked.url.href,
        });
      }
      return {
        url: checked.url.href,
        status: response.statusCode,
        headers,
        address: checked.address,
        redirects,
        body: this.cappedBody(response.body, agent, maxBytes, signal, deadline, checked),
        discard: async () => {
          await agent.destroy().catch(() => undefined);
        },
      };
    }
  }

  private async *cappedBody(
    body: AsyncIterable<Buffer> & { destroy(): void },
    agent: Agent,
    maxBytes: number,
    signal: AbortSignal,
    deadline: AbortSignal,
    checked: CheckedUrl,
  ): AsyncGenerator<Buffer> {
    let seen = 0;
    try {
      for await (const chunk of body) {
        seen += chunk.length;
        if (seen > maxBytes) {
          body.destroy();
          throw new GuardedFetchError('response_too_large', `the response is larger than the cap of ${maxBytes} bytes`, {
            url: checked.url.href,
          });
        }
        yield chunk;
      }
    } catch (error) {
      throw this.transportError(error, signal, deadline, checked);
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  }

  private transportError(error: unknown, signal: AbortSignal, deadline: AbortSignal, checked: CheckedUrl): Error {
    if (error instanceof GuardedFetchError) return error;
    const code = (error as { code?: string }).code ?? '';
    if (deadline.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      return new GuardedFetchError('timeout', `no complete answer within ${this.timeoutMs} ms`, { url: checked.url.href });
    }
    if (signal.aborted) return error as Error;
    return new GuardedFetchError('connect_failed', `the remote server could not be reached (${code || 'network error'})`, {
      url: checked.url.href,
      address: checked.address,
    });
  }
}
