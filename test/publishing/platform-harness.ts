/**
 * Per-platform publish flows: every simulator on loopback, the app listening on 127.0.0.1 behind a
 * recording relay (SERVICE_PUBLIC_BASE_URL points at the relay, so the signed content URLs the engine
 * hands to URL-based platforms are fetched over the network and the relay records what was served),
 * channels connected with tokens the simulators issued, and media uploaded through POST /v1/media.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Platform } from '../../src/providers/provider.js';
import { type RunningYoutubeSimulator, startYoutubeSimulator } from '../../src/sandbox/simulators/google.simulator.js';
import { META_SANDBOX_APP, type RunningMetaSimulator, startMetaSimulator } from '../../src/sandbox/simulators/meta.simulator.js';
import { type RunningPinterestSimulator, startPinterestSimulator } from '../../src/sandbox/simulators/pinterest.simulator.js';
import { type RunningTiktokSimulator, startTiktokSimulator } from '../../src/sandbox/simulators/tiktok.simulator.js';
import { type RunningXSimulator, startXSimulator } from '../../src/sandbox/simulators/x.simulator.js';
import { multipartBody } from '../media/media-helpers.js';
import { putChannel } from '../support/channels.js';
import { createTestContext, type TestClock, type TestContext } from '../support/harness.js';
import { INTERNAL_TOKEN, LiveClock, type Org } from './publishing-harness.js';

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export function publishingFixture(name: 'photo-640.jpg' | 'clip-640x360-5s.mp4'): Buffer {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
}

/** One response the relay passed from the app to a platform simulator. */
interface ServedMedia {
  path: string;
  status: number;
  bytes: number;
  sha256: string;
}

/** Forwards every request to the app and records what the content route answered. */
async function startRelay(target: () => number): Promise<{ server: Server; origin: string; served: ServedMedia[] }> {
  const served: ServedMedia[] = [];
  const server = createServer((req, res) => {
    const upstream = httpRequest({ host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers: req.headers }, (up) => {
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        const body = Buffer.concat(chunks);
        served.push({ path: req.url ?? '', status: up.statusCode ?? 0, bytes: body.length, sha256: sha256(body) });
        res.writeHead(up.statusCode ?? 502, up.headers).end(body);
      });
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
}

export interface PlatformHarness {
  ctx: TestContext;
  meta: RunningMetaSimulator;
  youtube: RunningYoutubeSimulator;
  pinterest: RunningPinterestSimulator;
  tiktok: RunningTiktokSimulator;
  x: RunningXSimulator;
  /** media responses served to the simulators through SERVICE_PUBLIC_BASE_URL */
  served: ServedMedia[];
  close(): Promise<void>;
}

const appEnv = (platform: Platform, clientId: string, clientSecret: string, urls: Record<string, string>) => {
  const k = `SERVICE_${platform.toUpperCase()}`;
  return {
    [`${k}_CLIENT_ID`]: clientId,
    [`${k}_CLIENT_SECRET`]: clientSecret,
    [`${k}_API_BASE_URL`]: urls.apiBaseUrl!,
    [`${k}_AUTH_BASE_URL`]: urls.authBaseUrl!,
    [`${k}_UPLOAD_BASE_URL`]: urls.uploadBaseUrl!,
  };
};

export interface SimulatorUrls {
  meta: string;
  youtube: string;
  x: string;
}

/** `extraEnv` adds settings that need the simulators' addresses (e.g. a hub URL). */
export async function startPlatformHarness(
  extraEnv: (sims: SimulatorUrls) => Record<string, string> = () => ({}),
): Promise<PlatformHarness> {
  const [meta, youtube, pinterest, tiktok, x] = await Promise.all([
    startMetaSimulator({ containerDelayMs: 20 }),
    startYoutubeSimulator(),
    startPinterestSimulator(),
    startTiktokSimulator({ processingDelayMs: 20 }),
    startXSimulator({ mediaProcessingMs: 20 }),
  ]);
  // uploads finish processing at once: the flows below test the upload itself, not the waiting
  youtube.state.processingReads = 0;
  pinterest.state.mediaProcessingReads = 0;
  pinterest.state.client = { id: 'pin-app', secret: 'pin-secret' };
  let appPort = 0;
  const relay = await startRelay(() => appPort);
  const env: Record<string, string> = {
    SERVICE_INTERNAL_TOKEN: INTERNAL_TOKEN,
    SERVICE_PUBLIC_API_RATE_LIMIT_DISABLED: 'true',
    SERVICE_PUBLIC_BASE_URL: relay.origin,
    SERVICE_PUBLISH_RETRY_BASE_MS: '150',
    SERVICE_PUBLISH_RETRY_MAX_MS: '1000',
    // generous: the simulators fetch our content URLs, and tests share a loaded machine
    SERVICE_PROVIDER_TIMEOUT_MS: '20000',
  };
  for (const p of ['facebook_page', 'instagram_business', 'instagram_standalone', 'threads'] as const)
    Object.assign(env, appEnv(p, META_SANDBOX_APP.clientId, META_SANDBOX_APP.clientSecret, { ...meta.baseUrls[p] }));
  Object.assign(env, appEnv('youtube', 'yt-client', 'yt-secret', { ...youtube.baseUrls }));
  Object.assign(env, appEnv('pinterest', 'pin-app', 'pin-secret', { ...pinterest.baseUrls }));
  Object.assign(env, appEnv('tiktok', tiktok.state.clientKey, tiktok.state.clientSecret, { ...tiktok.baseUrls }));
  Object.assign(env, appEnv('x', x.state.clientId, x.state.clientSecret ?? '', { ...x.baseUrls }));
  Object.assign(env, extraEnv({ meta: meta.url, youtube: youtube.url, x: x.url }));
  const ctx = await createTestContext({ clock: new LiveClock() as TestClock, env });
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  appPort = (ctx.app.server.address() as AddressInfo).port;
  return {
    ctx,
    meta,
    youtube,
    pinterest,
    tiktok,
    x,
    served: relay.served,
    async close() {
      await ctx.close();
      await Promise.all([meta.close(), youtube.close(), pinterest.close(), tiktok.close(), x.close()]);
      await new Promise<void>((r) => relay.server.close(() => r()));
    },
  };
}

export async function createPlatformOrg(h: PlatformHarness, name: string): Promise<Org> {
  const o = await h.ctx.createOrganization({ name });
  const { brandId } = await h.ctx.createBrand(o.organizationId, `${name} brand`);
  return { organizationId: o.organizationId, auth: o.auth, brandId };
}

/** A token the platform's simulator issued and the account it belongs to. */
function simulatorGrant(h: PlatformHarness, platform: Platform): { token: string; externalAccountId: string } {
  // the scopes the adapter asks for when it connects
  const scopes = h.ctx.root.shared.registry.get(platform).oauth.defaultScopes;
  const s = h.meta.state;
  switch (platform) {
    case 'facebook_page': {
      const user = s.issueToken({
        family: 'facebook',
        kind: 'user',
        subjectId: s.seed.fbUserId,
        userId: null,
        scopes: ['pages_show_list', 'pages_manage_posts', 'pages_manage_engagement', 'pages_read_engagement', 'pages_read_user_content'],
        longLived: true,
        ttlSeconds: null,
      });
      return { token: s.pageToken(s.seed.pageId, user).token, externalAccountId: s.seed.pageId };
    }
    case 'instagram_business':
      return {
        token: s.issueToken({
          family: 'facebook',
          kind: 'user',
          subjectId: s.seed.fbUserId,
          userId: null,
          scopes: ['instagram_basic', 'instagram_content_publish', 'instagram_manage_comments', 'pages_show_list'],
          longLived: true,
          ttlSeconds: null,
        }).token,
        externalAccountId: s.seed.igBusinessId,
      };
    case 'instagram_standalone':
      return {
        token: s.issueToken({
          family: 'instagram',
          kind: 'ig_user',
          subjectId: s.seed.igStandaloneId,
          userId: null,
          scopes: ['instagram_business_basic', 'instagram_business_content_publish', 'instagram_business_manage_comments'],
          longLived: true,
          ttlSeconds: null,
        }).token,
        externalAccountId: s.seed.igStandaloneId,
      };
    case 'threads':
      return {
        token: s.issueToken({
          family: 'threads',
          kind: 'threads_user',
          subjectId: s.seed.threadsUserId,
          userId: null,
          scopes: ['threads_basic', 'threads_content_publish', 'threads_manage_replies'],
          longLived: true,
          ttlSeconds: null,
        }).token,
        externalAccountId: s.seed.threadsUserId,
      };
    case 'youtube':
      return { token: h.youtube.state.issueTokens().accessToken, externalAccountId: h.youtube.state.defaultChannel.id };
    case 'pinterest':
      return { token: h.pinterest.state.issueTokens().accessToken, externalAccountId: h.pinterest.state.defaultUser.id };
    case 'tiktok': {
      const user = h.tiktok.state.user();
      return {
        token: h.tiktok.state.issueTokens(user.openId, scopes).accessToken,
        externalAccountId: user.openId,
      };
    }
    case 'x': {
      const user = h.x.state.user();
      return {
        token: h.x.state.issueTokens(user.id, scopes).accessToken,
        externalAccountId: user.id,
      };
    }
  }
}

/** Connects a channel through PUT /v1/channel-accounts with a token the simulator issued (stored encrypted, as the connect flow does). */
export async function connectPlatform(
  h: PlatformHarness,
  org: Org,
  platform: Platform,
): Promise<{ channelAccountId: string; externalAccountId: string }> {
  const grant = simulatorGrant(h, platform);
  const channelAccountId = await putChannel(h.ctx, org, {
    platform,
    externalAccountId: grant.externalAccountId,
    token: grant.token,
    brandId: org.brandId,
  });
  return { channelAccountId, externalAccountId: grant.externalAccountId };
}

/** Uploads bytes through POST /v1/media (multipart) and answers the library item id. */
export async function uploadMedia(h: PlatformHarness, org: Org, bytes: Buffer, filename: string): Promise<string> {
  const { body, contentType } = multipartBody([{ name: 'file', value: bytes, filename }]);
  const res = await h.ctx.app.inject({
    method: 'POST',
    url: '/v1/media',
    headers: { ...org.auth, 'content-type': contentType },
    payload: body,
  });
  // 200: the organization already holds these bytes (the library deduplicates by content)
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  const item = res.json();
  assert.equal(item.bytes, bytes.length);
  return item.mediaLibraryItemId as string;
}

export async function call(h: PlatformHarness, org: Org, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const res = await h.ctx.app.inject({ method, url, headers: org.auth, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { status: res.statusCode, body: res.body ? res.json() : null };
}

/** Creates and enqueues a one-target job; answers its id. */
export async function publishNow(
  h: PlatformHarness,
  org: Org,
  target: { platform: Platform; channelAccountId: string; settings?: Record<string, unknown> },
  text: string,
  mediaLibraryItemIds: string[],
): Promise<string> {
  const r = await call(h, org, 'POST', '/v1/publish/jobs', {
    plan: { brandId: org.brandId, text, targets: [target], mediaLibraryItemIds },
    dryRun: false,
    enqueue: true,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.publishJobId as string;
}

/** A job as GET /v1/publish/jobs/{id} answers it (the fields these tests read). */
export interface JobView {
  status: string;
  targets: Array<{ state: string; providerPostId: string; providerUrl: string | null; attempts: number; [k: string]: unknown }>;
}

/**
 * Waits until every target of the job reached a state the worker leaves alone; answers the job. The bound
 * is generous: on CI two passes share two cores, and a flow with status polling (a container, a video)
 * waits for its polls, seconds apart, on a loaded machine.
 */
export async function settle(h: PlatformHarness, org: Org, jobId: string, timeoutMs = 60_000): Promise<JobView> {
  const final = ['published', 'failed', 'needs_attention', 'needs_reconnect', 'cancelled'];
  const deadline = Date.now() + timeoutMs;
  let last: JobView | null = null;
  while (Date.now() < deadline) {
    last = (await call(h, org, 'GET', `/v1/publish/jobs/${jobId}`)).body as JobView;
    if (last.targets.every((t) => final.includes(t.state))) return last;
    await new Promise((r) => setTimeout(r, 60));
  }
  throw new Error(`job ${jobId} did not settle; last: ${JSON.stringify(last)}`);
}
