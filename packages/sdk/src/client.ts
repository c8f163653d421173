/**
 * The client: openapi-fetch over the generated `paths` types (every path, parameter, body and answer
 * typed from the service's OpenAPI document), plus the parts generation cannot give: credentials,
 * safe retries with idempotency keys, cursor pagination and typed errors.
 */
import createClient, { type Client } from 'openapi-fetch';
import { ServiceApiError } from './errors.js';
import type { paths } from './generated/openapi.js';
import { retryingFetch } from './retry.js';

export interface ServiceApiOptions {
  /** e.g. `http://localhost:3000` (no trailing `/v1`) */
  baseUrl: string;
  /** an API key (`sk_...`) or an OAuth access token; sent as `Authorization: Bearer` */
  token?: string;
  /** retries of a request that is safe to repeat (default 2) */
  maxRetries?: number;
  /** first backoff step (default 500 ms) */
  retryBaseDelayMs?: number;
  /** longest wait before a retry; a longer Retry-After is answered to the caller (default 30 s) */
  maxRetryDelayMs?: number;
  /** add idempotency keys to writes whose routes honour them, so retries never act twice (default true) */
  autoIdempotency?: boolean;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;

/** Paths whose GET answers a cursor page `{data, nextCursor}`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: infer R } } }
    ? JsonOf<R> extends { data: unknown[]; nextCursor: string | null }
      ? P
      : never
    : never;
}[keyof paths];

type ListOp<P extends ListPath> = paths[P] extends { get: infer Op } ? Op : never;
export type ListItem<P extends ListPath> =
  ListOp<P> extends { responses: { 200: infer R } } ? (JsonOf<R> extends { data: Array<infer I> } ? I : never) : never;
type ListParams<P extends ListPath> = ListOp<P> extends { parameters: infer Params } ? Params : never;
type ListQuery<P extends ListPath> = ListParams<P> extends { query?: infer Q } ? Omit<NonNullable<Q>, 'cursor'> : never;
type ListPathParams<P extends ListPath> = ListParams<P> extends { path?: infer Pp } ? Pp : never;

export interface ServiceApi extends Client<paths> {
  /**
   * Every item of a list route, page by page (`limit` sets the page size):
   * `for await (const job of api.paginate('/v1/publish/jobs', { query: { status: 'failed' } })) ...`
   */
  paginate<P extends ListPath>(
    path: P,
    params?: { query?: ListQuery<P>; path?: ListPathParams<P> },
  ): AsyncGenerator<ListItem<P>, void, undefined>;
}

export function createServiceApi(options: ServiceApiOptions): ServiceApi {
  const baseFetch = options.fetch ?? globalThis.fetch;
  const fetcher = retryingFetch(baseFetch, {
    maxRetries: options.maxRetries ?? 2,
    baseDelayMs: options.retryBaseDelayMs ?? 500,
    maxDelayMs: options.maxRetryDelayMs ?? 30_000,
    autoIdempotency: options.autoIdempotency ?? true,
  });
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: fetcher,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
  });
  const api = client as ServiceApi;
  api.paginate = async function* paginate(path, params = {}) {
    let cursor: string | undefined;
    do {
      const { data, error, response } = await (client.GET as (p: string, init: unknown) => Promise<any>)(path, {
        params: { query: { ...(params.query ?? {}), ...(cursor ? { cursor } : {}) }, path: params.path },
      });
      if (error !== undefined || !response.ok) throw new ServiceApiError(response.status, error, response.headers.get('x-request-id'));
      const page = data as { data: ListItem<typeof path>[]; nextCursor: string | null };
      yield* page.data;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  };
  return api;
}
