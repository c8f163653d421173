/**
 * Thin Graph-style request helpers over providerRequest, shared by the four Meta adapters. The access
 * token travels as the documented `access_token` parameter (query for GET/DELETE, form body for POST);
 * non-2xx answers and 200 answers carrying an `error` object are mapped by graph-errors.ts.
 */
import type { Platform, ProviderCallContext } from '../provider.js';
import { ProviderError } from '../provider.js';
import { providerRequest } from '../shared/provider-http.js';
import { graphErrorToProviderError } from './graph-errors.js';

export type GraphParams = Record<string, string | number | boolean | undefined | null>;

export interface GraphCall {
  platform: Platform;
  method: 'GET' | 'POST' | 'DELETE';
  /** absolute URL without the query */
  url: string;
  params?: GraphParams;
  accessToken?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** false for calls that create a post or comment: a lost answer is then unknown_outcome */
  idempotent: boolean;
}

function toSearchParams(params: GraphParams, token?: string): URLSearchParams {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) sp.set(k, String(v));
  if (token) sp.set('access_token', token);
  return sp;
}

async function graphCall<T = Record<string, unknown>>(call: GraphCall): Promise<T> {
  const params = toSearchParams(call.params ?? {}, call.accessToken);
  const inQuery = call.method !== 'POST';
  const qs = params.toString();
  const res = await providerRequest(call.platform, {
    method: call.method,
    url: inQuery && qs ? `${call.url}?${qs}` : call.url,
    form: inQuery ? undefined : params,
    timeoutMs: call.timeoutMs,
    signal: call.signal,
    idempotent: call.idempotent,
  });
  const body = res.body as Record<string, unknown> | null;
  if (res.status >= 400 || (body && typeof body === 'object' && 'error' in body && body.error)) {
    throw graphErrorToProviderError(call.platform, res.status, res.headers, res.body);
  }
  if (res.status >= 300) {
    throw new ProviderError({
      platform: call.platform,
      category: 'platform_rejected',
      message: `${call.platform} answered ${res.status} without a body`,
      httpStatus: res.status,
    });
  }
  return (body ?? {}) as T;
}

/** Builds a per-adapter caller bound to its platform, timeout and a context's token and signal. */
export function graphClient(platform: Platform, timeoutMs: number) {
  const call = <T = Record<string, unknown>>(
    method: GraphCall['method'],
    url: string,
    ctx: Pick<ProviderCallContext, 'accessToken' | 'signal'> | null,
    params: GraphParams | undefined,
    idempotent: boolean,
  ) => graphCall<T>({ platform, method, url, params, accessToken: ctx?.accessToken, timeoutMs, signal: ctx?.signal, idempotent });
  return {
    get: <T = Record<string, unknown>>(
      url: string,
      ctx: Pick<ProviderCallContext, 'accessToken' | 'signal'> | null,
      params?: GraphParams,
    ) => call<T>('GET', url, ctx, params, true),
    post: <T = Record<string, unknown>>(
      url: string,
      ctx: Pick<ProviderCallContext, 'accessToken' | 'signal'> | null,
      params: GraphParams,
      idempotent = false,
    ) => call<T>('POST', url, ctx, params, idempotent),
    del: <T = Record<string, unknown>>(
      url: string,
      ctx: Pick<ProviderCallContext, 'accessToken' | 'signal'> | null,
      params?: GraphParams,
    ) => call<T>('DELETE', url, ctx, params, true),
  };
}
export type GraphClient = ReturnType<typeof graphClient>;

/** Host root without the version segment: token endpoints of Instagram and Threads are unversioned. */
export function graphRoot(apiBaseUrl: string): string {
  return apiBaseUrl.replace(/\/+$/, '').replace(/\/v\d+(\.\d+)?$/, '');
}

export function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Opaque poll tokens: base64url JSON, never containing secrets. */
export function encodePollToken(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodePollToken<T>(platform: Platform, token: string): T {
  try {
    return JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as T;
  } catch {
    throw new ProviderError({
      platform,
      category: 'platform_rejected',
      message: 'malformed poll token',
    });
  }
}
