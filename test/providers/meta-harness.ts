/**
 * Shared setup for the Meta adapter tests: the Meta simulator, a loopback media host the simulator
 * fetches container media from, adapter configuration, and the OAuth connect round trip.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  OAuthTokens,
  ProviderAppConfig,
  ProviderCallContext,
  PublishMediaItem,
  PublishRequest,
  PublishResult,
  SocialProvider,
} from '../../src/providers/provider.js';
import {
  META_SANDBOX_APP,
  type MetaPlatform,
  type RunningMetaSimulator,
  startMetaSimulator,
} from '../../src/sandbox/simulators/meta.simulator.js';

export const REDIRECT_URI = 'http://127.0.0.1:9/v1/channel-accounts/oauth/callback/meta';

export interface MetaHarness {
  sim: RunningMetaSimulator;
  mediaUrl(name: string): string;
  /** a media item the loopback media host serves (image.jpg, video.mp4) or not (any other name) */
  image(name?: string): PublishMediaItem;
  video(name?: string): PublishMediaItem;
  config(platform: MetaPlatform, overrides?: Partial<ProviderAppConfig>): ProviderAppConfig;
  close(): Promise<void>;
}

async function startMediaHost(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    if (req.url === '/image.jpg') {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]));
    } else if (req.url === '/video.mp4') {
      res.writeHead(200, { 'content-type': 'video/mp4' }).end(Buffer.from('\0\0\0\x18ftypmp42'));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  };
}

export async function startMetaHarness(): Promise<MetaHarness> {
  // containers stay IN_PROGRESS long enough that the first status read (one loaded round trip, the
  // description check included) still sees them processing
  const sim = await startMetaSimulator({ containerDelayMs: 150 });
  const media = await startMediaHost();
  return {
    sim,
    mediaUrl: (name) => `${media.origin}/${name}`,
    image: (name = 'image.jpg') => mediaItem('image', `${media.origin}/${name}`),
    video: (name = 'video.mp4') => mediaItem('video', `${media.origin}/${name}`),
    config: (platform, overrides = {}) => ({
      clientId: META_SANDBOX_APP.clientId,
      clientSecret: META_SANDBOX_APP.clientSecret,
      redirectUri: REDIRECT_URI,
      ...sim.baseUrls[platform],
      timeoutMs: 2_000,
      ...overrides,
    }),
    async close() {
      await sim.close();
      await new Promise<void>((resolve) => media.server.close(() => resolve()));
    },
  };
}

/** Follows the authorization URL (the simulator approves at once) and exchanges the code. */
export async function connect(provider: SocialProvider, scopes: string[] = provider.oauth.defaultScopes): Promise<OAuthTokens> {
  const state = `st_${Math.random().toString(36).slice(2)}`;
  const res = await fetch(
    provider.oauth.authorizationUrl({
      state,
      redirectUri: REDIRECT_URI,
      scopes,
    }),
    { redirect: 'manual' },
  );
  assert.equal(res.status, 302);
  const location = new URL(res.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
  assert.equal(location.searchParams.get('state'), state);
  const code = location.searchParams.get('code');
  assert.ok(code);
  return provider.oauth.exchangeCode({ code, redirectUri: REDIRECT_URI });
}

export { ctxFor } from '../support/simulators.js';

export function mediaItem(kind: 'image' | 'video', url: string): PublishMediaItem {
  return {
    kind,
    mimeType: kind === 'image' ? 'image/jpeg' : 'video/mp4',
    bytes: 1024,
    url,
    width: 1080,
    height: 1080,
    ...(kind === 'video' ? { durationSeconds: 10 } : {}),
    async open() {
      return (async function* () {})();
    },
  };
}

/** A publish request without settings. */
export function postOf(text: string, idempotencyKey: string, media: PublishMediaItem[] = []): PublishRequest {
  return { text, media, settings: {}, idempotencyKey };
}

/** Calls pollPublish until the post is published (bounded). */
export async function untilPublished(
  provider: SocialProvider,
  ctx: ProviderCallContext,
  first: PublishResult,
): Promise<Extract<PublishResult, { status: 'published' }>> {
  let result = first;
  for (let i = 0; result.status === 'processing'; i++) {
    assert.ok(i < 50, 'publish did not finish');
    await new Promise((r) => setTimeout(r, 20));
    result = await provider.pollPublish(ctx, result.pollToken);
  }
  return result;
}

export { rejectsWith } from '../support/provider-errors.js';
