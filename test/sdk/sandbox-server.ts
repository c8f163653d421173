/**
 * A real server in sandbox mode on loopback with a worker, an organization, a brand and a connected
 * X channel (through the simulator's consent, as a user would): what the SDK and MCP tests drive.
 */
import assert from 'node:assert/strict';
import { LiveClock } from '../publishing/publishing-harness.js';
import { createTestContext, type TestContext } from '../support/harness.js';
import { freePort } from '../support/service-process.js';

export interface SandboxServer {
  ctx: TestContext;
  base: string;
  token: string;
  organizationId: string;
  brandId: string;
  channelAccountId: string;
  close(): Promise<void>;
}

export async function startSandboxServer(env: Record<string, string> = {}): Promise<SandboxServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ctx = await createTestContext({
    clock: new LiveClock() as never,
    env: {
      SERVICE_PROVIDER_MODE: 'sandbox',
      SERVICE_PUBLIC_BASE_URL: base,
      SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true',
      SERVICE_PUBLISH_RETRY_BASE_MS: '150',
      SERVICE_CHANNEL_CONNECT_RETURN_ORIGINS: 'https://app.example.test',
      ...env,
    },
  });
  await ctx.app.listen({ port, host: '127.0.0.1' });
  await ctx.startWorker();
  const org = await ctx.createOrganization({ name: 'SDK Org' });
  const { brandId } = await ctx.createBrand(org.organizationId, 'SDK Brand');
  const res = await fetch(`${base}/v1/channel-accounts/connect-url`, {
    method: 'POST',
    headers: { ...org.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'x', brandId, returnUrl: 'https://app.example.test/done' }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const { authorizationUrl } = (await res.json()) as { authorizationUrl: string };
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  const done = await fetch(consent.headers.get('location')!, { redirect: 'manual' });
  const channelAccountId = new URL(done.headers.get('location')!).searchParams.get('channelAccountId');
  assert.ok(channelAccountId, 'the sandbox consent connected an X channel');
  return {
    ctx,
    base,
    token: org.apiKey,
    organizationId: org.organizationId,
    brandId,
    channelAccountId,
    close: () => ctx.close(),
  };
}
