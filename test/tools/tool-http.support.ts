/** Helpers for the tool API HTTP tests: users with a tier, their keys, and requests through Fastify. */
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { ToolKeysService } from '../../src/modules/tools/tool-keys.service.js';
import type { MembershipTier } from '../../src/modules/tools/tool-limits.js';
import type { TestContext } from '../support/harness.js';

export const UTM_PATH = '/api/v1/tools/utm-builder/build';
export const QR_PATH = '/api/v1/tools/qrcode/generate';

export interface ToolUser {
  email: string;
  apiKey: string;
  apiKeyId: string;
  auth: Record<string, string>;
}

/**
 * The key service of the context's own process (the settings routes', and the CLI's code): its changes apply
 * to this process's next request at once; other processes learn of them from the database's notification.
 */
export const toolKeys = (ctx: TestContext): ToolKeysService => ctx.root.areas.tools.keys;

export async function createToolUser(ctx: TestContext, tier: MembershipTier, scopes?: string[]): Promise<ToolUser> {
  const service = toolKeys(ctx);
  const email = `tools-${randomBytes(5).toString('hex')}@example.test`;
  await service.createUser({ email, tier }, ctx.clock.now());
  const key = await service.createKey({ email, scopes: scopes ?? ['tools:utm-builder:build', 'tools:qrcode:generate'] }, ctx.clock.now());
  return { email, apiKey: key.apiKey, apiKeyId: key.apiKeyId, auth: { authorization: `Bearer ${key.apiKey}` } };
}

export function utmBody(urls: unknown[], extra: Record<string, unknown> = {}) {
  return { urls, source: 'newsletter', medium: 'email', campaign: 'launch', ...extra };
}

export function urls(count: number, start = 0): string[] {
  return Array.from({ length: count }, (_, i) => `https://shop.example/p/${start + i}?ref=x`);
}

export function post(ctx: TestContext, path: string, headers: Record<string, string>, body: unknown): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

export function errorCode(res: LightMyRequestResponse): string {
  const body = res.json();
  if (body.object !== 'tool_api.error') throw new Error(`not a tool API error body: ${res.body}`);
  return body.error.code;
}

/** A QR request that keeps a worker busy for several milliseconds. */
export const HEAVY_QR = { text: 'x'.repeat(1800), format: 'png', size: 2048, errorCorrectionLevel: 'L' };

/** `clients` callers each send one request, retrying while another request of the key runs (429 concurrency_limited). */
export async function concurrentClients(send: (i: number) => ReturnType<typeof post>, clients: number) {
  return Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      for (;;) {
        const res = await send(i);
        if (res.statusCode !== 429 || errorCode(res) !== 'concurrency_limited') return res;
        await new Promise((r) => setTimeout(r, 10 + Math.random() * 30));
      }
    }),
  );
}
