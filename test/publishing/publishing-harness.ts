import { randomBytes } from 'node:crypto';
/**
 * Publishing test setup: the Meta simulator (Facebook Pages, Instagram, Threads) and the X simulator
 * on loopback, a test context whose adapters point at them, organizations with brands and connected
 * channels (tokens issued by the simulator, stored encrypted like the connect flow does), and helpers
 * that wait for target states.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Platform } from '../../src/providers/provider.js';
import { META_SANDBOX_APP, type RunningMetaSimulator, startMetaSimulator } from '../../src/sandbox/simulators/meta.simulator.js';
import { DASHBOARD, sessionHeaders } from '../support/auth.js';
import { putChannel } from '../support/channels.js';
import { TestClock as BaseClock, createTestContext, type HarnessOptions, type TestClock, type TestContext } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

/** A test clock that runs with real time (pg-boss start times are real), shiftable by set/advance. */
export class LiveClock extends BaseClock {
  private offset = 0;
  override now(): Date {
    return new Date(Date.now() + this.offset);
  }
  override set(ms: number | Date): void {
    this.offset = (typeof ms === 'number' ? ms : ms.getTime()) - Date.now();
  }
  override advance(ms: number): void {
    this.offset += ms;
  }
}

export const INTERNAL_TOKEN = 'internal-test-token-0123456789';

/** Headers of a signed-in dashboard admin (or other role) of the organization: session cookie and approved Origin. */
export async function dashboardHeaders(
  h: PublishingHarness,
  org: { organizationId: string },
  role: 'member' | 'admin' | 'owner' = 'admin',
) {
  return sessionHeaders(h.ctx, org.organizationId, role);
}

export interface PublishingHarness {
  ctx: TestContext;
  /** what the context was built with: a second app on the same database (another clock) takes the same */
  options: HarnessOptions & { env: Record<string, string>; encryptionKey: Buffer };
  meta: RunningMetaSimulator;
  mediaOrigin: string;
  close(): Promise<void>;
}

/** A tiny host for external media the simulator fetches (JPEG bytes). */
async function startMediaHost(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/image'))
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]));
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  };
}

export async function startPublishingHarness(
  opts: { env?: Record<string, string>; harness?: HarnessOptions } = {},
): Promise<PublishingHarness> {
  const meta = await startMetaSimulator({ containerDelayMs: 30 });
  const media = await startMediaHost();
  const env: Record<string, string> = {
    SERVICE_INTERNAL_TOKEN: INTERNAL_TOKEN,
    SERVICE_DASHBOARD_ORIGINS: DASHBOARD,
    SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true',
    SERVICE_PUBLISH_RETRY_BASE_MS: '150',
    SERVICE_PUBLISH_RETRY_MAX_MS: '1000',
    SERVICE_PROVIDER_TIMEOUT_MS: '5000',
  };
  for (const p of ['facebook_page', 'instagram_business', 'threads'] as const) {
    const k = p.toUpperCase();
    env[`SERVICE_${k}_CLIENT_ID`] = META_SANDBOX_APP.clientId;
    env[`SERVICE_${k}_CLIENT_SECRET`] = META_SANDBOX_APP.clientSecret;
    env[`SERVICE_${k}_API_BASE_URL`] = meta.baseUrls[p].apiBaseUrl;
    env[`SERVICE_${k}_AUTH_BASE_URL`] = meta.baseUrls[p].authBaseUrl;
    env[`SERVICE_${k}_UPLOAD_BASE_URL`] = meta.baseUrls[p].uploadBaseUrl;
  }
  const options = {
    ...opts.harness,
    env: { ...env, ...opts.env, ...opts.harness?.env },
    encryptionKey: opts.harness?.encryptionKey ?? randomBytes(32),
  };
  const ctx = await createTestContext({ clock: new LiveClock() as TestClock, ...options });
  return {
    ctx,
    options,
    meta,
    mediaOrigin: media.origin,
    async close() {
      await ctx.close();
      await meta.close();
      await new Promise<void>((r) => media.server.close(() => r()));
    },
  };
}

export interface Org {
  organizationId: string;
  auth: Record<string, string>;
  brandId: string;
}

export async function createOrg(h: PublishingHarness, name = 'Org'): Promise<Org> {
  const o = await h.ctx.createOrganization({ name });
  const { brandId } = await h.ctx.createBrand(o.organizationId, `${name} brand`);
  return { organizationId: o.organizationId, auth: o.auth, brandId };
}

/** A channel on the simulator's seeded accounts, with a token the simulator issued. */
export async function connectChannel(
  h: PublishingHarness,
  org: Org,
  platform: Extract<Platform, 'facebook_page' | 'threads' | 'instagram_business'>,
  opts: { token?: string } = {},
): Promise<{ channelAccountId: string; externalAccountId: string }> {
  const s = h.meta.state;
  let token = opts.token;
  let externalAccountId: string;
  if (platform === 'facebook_page') {
    const user = s.issueToken({
      family: 'facebook',
      kind: 'user',
      subjectId: s.seed.fbUserId,
      userId: null,
      scopes: ['pages_show_list', 'pages_manage_posts', 'pages_manage_engagement', 'pages_read_engagement', 'pages_read_user_content'],
      longLived: true,
      ttlSeconds: null,
    });
    token ??= s.pageToken(s.seed.pageId, user).token;
    externalAccountId = s.seed.pageId;
  } else if (platform === 'threads') {
    token ??= s.issueToken({
      family: 'threads',
      kind: 'threads_user',
      subjectId: s.seed.threadsUserId,
      userId: null,
      scopes: ['threads_basic', 'threads_content_publish', 'threads_manage_replies'],
      longLived: true,
      ttlSeconds: null,
    }).token;
    externalAccountId = s.seed.threadsUserId;
  } else {
    token ??= s.issueToken({
      family: 'facebook',
      kind: 'user',
      subjectId: s.seed.fbUserId,
      userId: null,
      scopes: ['instagram_basic', 'instagram_content_publish', 'instagram_manage_comments', 'pages_show_list'],
      longLived: true,
      ttlSeconds: null,
    }).token;
    externalAccountId = s.seed.igBusinessId;
  }
  const channelAccountId = await putChannel(h.ctx, org, { platform, externalAccountId, token, brandId: org.brandId });
  return { channelAccountId, externalAccountId };
}

export async function api(h: PublishingHarness, org: Org, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const res = await h.ctx.app.inject({
    method,
    url,
    headers: org.auth,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
  return {
    status: res.statusCode,
    body: res.body ? res.json() : null,
    headers: res.headers,
  };
}

export { waitFor };

/** How many `publish_target.published` events a target has (each outcome is recorded once). */
export async function publishedEventCount(h: PublishingHarness, targetId: string): Promise<number> {
  const r = await h.ctx.database.sql.executeSql(
    `select count(*)::int as n from events where type = 'publish_target.published' and data->>'postTargetId' = $1`,
    [targetId],
  );
  return Number((r.rows[0] as { n: number }).n);
}

/** Waits until the job's targets are all in one of `states`; answers the job. */
export async function waitForJob(h: PublishingHarness, org: Org, jobId: string, states: string[], timeoutMs = 8000) {
  let last: unknown = null;
  try {
    return await waitFor(
      `job ${jobId} targets in ${states.join('/')}`,
      async () => {
        const r = await api(h, org, 'GET', `/v1/publish/jobs/${jobId}`);
        last = r.body;
        return r.body.targets.every((t: { state: string }) => states.includes(t.state)) ? r.body : null;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last: ${JSON.stringify(last)}`);
  }
}
