/**
 * The fetch the /mcp tools call the REST API with: the request goes through Fastify's inject, so it
 * passes the same authentication, scope checks, organization scoping, validation, rate limits and
 * error answers as a request over the network, without a socket.
 */
import type { FastifyInstance } from 'fastify';

export const IN_PROCESS_BASE = 'http://in-process.invalid';

export function injectFetch(app: FastifyInstance, publicBaseUrl: string): typeof fetch {
  const base = new URL(publicBaseUrl);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    // the API sees the host and scheme it is served at (its origin check compares them)
    headers.host = base.host;
    headers['x-forwarded-proto'] = base.protocol.replace(':', '');
    const method = request.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
    const payload = method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(await request.arrayBuffer());
    const res = await app.inject({ method, url: `${url.pathname}${url.search}`, headers, ...(payload?.length ? { payload } : {}) });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [String(v)]) out.append(k, one);
    }
    const empty = res.statusCode === 204 || res.statusCode === 304 || method === 'HEAD';
    return new Response(empty ? null : res.rawPayload, { status: res.statusCode, headers: out });
  }) as typeof fetch;
}
