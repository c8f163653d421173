/**
 * The typed API client: openapi-fetch over the `paths` types generated from GET /v1/openapi.json
 * (packages/sdk/src/generated/openapi.ts, refreshed by `npm run sdk:generate`). Same origin; the
 * dashboard session cookie goes along, and an API key entered on the sign-in page is sent as a bearer.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { ServiceApiError, unwrap } from '../../packages/sdk/src/errors';
import type { components, paths } from '../../packages/sdk/src/generated/openapi';

export type Schemas = components['schemas'];
export type Brand = Schemas['Brand'];
export type ChannelAccount = Schemas['ChannelAccount'];
type Json<T> = T extends { content: { 'application/json': infer J } } ? J : never;
export type PublishJob = Json<paths['/v1/publish/jobs/{publishJobId}']['get']['responses'][200]>;
export type PlanPreview = Json<paths['/v1/publish/plans/preview']['post']['responses'][200]>;
export type PublishRequest = NonNullable<paths['/v1/publish/jobs']['post']['requestBody']>['content']['application/json'];
export type Platform = ChannelAccount['platform'];

const KEY = 'service-api.apiKey';
export const credential = {
  get: () => sessionStorage.getItem(KEY),
  set: (k: string) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
};

const bearer: Middleware = {
  onRequest({ request }) {
    const key = credential.get();
    if (key) request.headers.set('authorization', `Bearer ${key}`);
    return request;
  },
};

export const client = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
client.use(bearer);

// Errors are the SDK's: ServiceApiError carries the catalog code, status, fields and request id.
export { ServiceApiError } from '../../packages/sdk/src/errors';

/** Unwraps an openapi-fetch answer (the SDK's unwrap): the data, or a ServiceApiError. */
export const ok = unwrap;

/** Routes not yet in the OpenAPI document (sessions): plain JSON calls with the same error mapping. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const key = credential.get();
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) throw new ServiceApiError(res.status, data, res.headers.get('x-request-id'));
  return data as T;
}

/** Multipart upload with progress (fetch has no upload progress). */
export function uploadMedia(file: File, brandId: string, onProgress: (fraction: number) => void): Promise<Schemas['MediaLibraryItem']> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/media');
    const key = credential.get();
    if (key) xhr.setRequestHeader('authorization', `Bearer ${key}`);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      const body = xhr.responseText ? JSON.parse(xhr.responseText) : {};
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ServiceApiError(xhr.status, body, xhr.getResponseHeader('x-request-id')));
    };
    xhr.onerror = () => reject(new ServiceApiError(0, { error: 'network_error', message: 'The upload did not reach the server.' }, null));
    const form = new FormData();
    form.append('brandId', brandId);
    form.append('file', file);
    xhr.send(form);
  });
}

interface BrowserSessionStart {
  authorizationCode: string;
  nonce: string;
  expiresAt: string;
}

export async function signIn(email: string, password: string): Promise<void> {
  const start = await call<BrowserSessionStart>('POST', '/v1/auth/browser-session/start', { email, password });
  await call('POST', '/v1/auth/browser-session/exchange', { authorizationCode: start.authorizationCode, nonce: start.nonce });
}
